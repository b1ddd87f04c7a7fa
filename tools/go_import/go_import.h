// ImportGoTrace: converts a Go execution trace (runtime/trace, Go 1.22 or 1.23) into a
// tracewire trace, one tracewire generation per Go generation (docs/go-traces.md has the
// mapping table):
//  * one process per trace;
//  * each goroutine a thread whose ID is the goroutine ID, named by its start function
//    (the function `go` was called with; for a goroutine running when tracing started,
//    the outermost function of its first stack);
//  * the goroutine's creation a flow from the creating goroutine to the new one: a task
//    (category "go.create", named by the new goroutine, ID kCreationTaskBase + its ID)
//    begun on the creator, worked for (task_adopt) a nanosecond by the creator and then by
//    the new goroutine, which ends it; its start thread_start, its end thread_exit;
//  * user tasks (trace.NewTask) tasks with their parents; user regions regions on their
//    goroutine (category "go.region"); user logs data events (category "go.log", the log's
//    category as key, its message as value); the goroutine adopts the task a region or
//    log names (task_adopt just before it), so that both belong to their task, and
//    releases it just after its last open region ends;
//  * blocking (category "go.block", the label Go's reason: "chan receive", "sync",
//    "sleep", ...), system calls ("go.syscall") and GC mark assists ("go.gc") regions on
//    the goroutine;
//  * the GC's mark phases on the runtime thread "GC", stop-the-world pauses on the
//    runtime thread "stop-the-world" (category "go.gc"), heap size, heap goal and
//    GOMAXPROCS gauges on the "GC" thread;
//  * CPU samples with their stacks (function, file and line from the trace's stack table)
//    on their goroutine (on "GC" when they ran outside any goroutine).
// Times are Go's nanoseconds as Go's parser computes them (the trace clock ticks in ns).
// Go traces hold no wall clock: the clock_sync takes the trace clock as wall time.
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_IMPORT_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_IMPORT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reader/byte_source.h"
#include "tools/go_import/go_event_log.h"

namespace tracewire::go_trace {

// Thread IDs of the runtime's tracks (above any goroutine ID).
inline constexpr uint64_t kGcThread = uint64_t{1} << 48;
inline constexpr uint64_t kStwThread = kGcThread + 1;
// Task IDs of goroutine creations: this plus the new goroutine's ID (above Go's task IDs).
inline constexpr uint64_t kCreationTaskBase = uint64_t{1} << 62;

struct GoImportOptions {
  bool compress = false;  // zstd-compress every generation
  bool salvage = false;   // keep the intact generations of a damaged trace
  // The process's sid (default "go-trace").
  std::string sid = "go-trace";
};

struct GoImportResult {
  std::string trace;       // the tracewire trace (file header first)
  uint64_t go_events = 0;  // events of Go's parser read
  uint64_t generations = 0;
  std::vector<std::string> damage;  // salvage: generations dropped, and why
  // GoImporter's peak_buffered() and largest_generation().
  uint64_t peak_buffered = 0;
  uint64_t largest_generation = 0;
};

// The bound GoImporter::peak_buffered() keeps: at most kPeakPerGenerationByte times
// largest_generation(), plus kPeakSlack (a read of the source, a batch, the file header).
inline constexpr uint64_t kPeakPerGenerationByte = 8;
inline constexpr uint64_t kPeakSlack = uint64_t{256} << 10;

class GoConverter;
class GoTraceReader;

// The conversion a generation at a time, from a source read once (a file, stdin, a
// pipe): memory is bounded by the largest Go generation, not by the trace. It holds one
// generation's bytes (and the first batch of the next), its tables, its events packed
// (GoEventLog) and its converted tracewire generation, besides what outlives a generation
// (the goroutines' tracks, the open tasks and slices).
class GoImporter {
 public:
  // Reads the trace's header. Errors: those of GoTraceReader::Open.
  static absl::StatusOr<std::unique_ptr<GoImporter>> Open(
      std::unique_ptr<reader::ByteSource> source, const GoImportOptions& options);
  // Open over the whole trace in memory.
  static absl::StatusOr<std::unique_ptr<GoImporter>> Open(std::string data,
                                                          const GoImportOptions& options);
  ~GoImporter();

  // Appends the next part of the tracewire trace to *out: the file header with the first
  // generation, then a generation per call; false (nothing appended) at the end. Errors:
  // ImportGoTrace's, but for the read-back check (the caller's reader does it), and I/O
  // errors of the source as they are. No call after an error.
  absl::StatusOr<bool> Next(std::string* out);

  uint64_t go_events() const { return go_events_; }
  uint64_t generations() const { return generations_; }
  const std::vector<std::string>& damage() const;
  // The most bytes held at once for one generation: the Go trace's bytes buffered, the
  // packed events and the converted generation. Bounded by a constant times
  // largest_generation() (the largest generation's bytes in the Go trace) plus a read.
  uint64_t peak_buffered() const { return peak_buffered_; }
  uint64_t largest_generation() const;

 private:
  GoImporter();
  static absl::StatusOr<std::unique_ptr<GoImporter>> Make(
      absl::StatusOr<std::unique_ptr<GoTraceReader>> reader, const GoImportOptions& options);

  std::unique_ptr<GoTraceReader> reader_;
  std::unique_ptr<GoConverter> converter_;
  GoEventLog events_;
  uint64_t go_events_ = 0;
  uint64_t generations_ = 0;
  uint64_t peak_buffered_ = 0;
  bool done_ = false;
};

// Converts `data` (the whole Go trace) with a GoImporter, and reads the result back.
// Errors: those of GoTraceReader (not a Go trace, unsupported version, damage naming the
// generation and what broke), and InternalError if the result does not decode (a bug of
// the importer).
absl::StatusOr<GoImportResult> ImportGoTrace(std::string data, const GoImportOptions& options);

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_IMPORT_H_
