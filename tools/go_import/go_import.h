// ImportGoTrace: converts a Go execution trace (runtime/trace, Go 1.22 or 1.23) into a
// tracewire trace, one tracewire generation per Go generation (docs/go-traces.md has the
// mapping table):
//  * one process per trace;
//  * each goroutine a thread whose ID is the goroutine ID, named by its start function
//    (the function `go` was called with; for a goroutine running when tracing started,
//    the outermost function of its first stack);
//  * the goroutine's creation a data event "go.create" on the creating goroutine
//    (key "goroutine", the new goroutine's ID), its start thread_start, its end thread_exit;
//  * user tasks (trace.NewTask) tasks with their parents; user regions regions on their
//    goroutine (category "go.region"); user logs data events (category "go.log", the log's
//    category as key, its message as value);
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
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tracewire::go_trace {

// Thread IDs of the runtime's tracks (above any goroutine ID).
inline constexpr uint64_t kGcThread = uint64_t{1} << 48;
inline constexpr uint64_t kStwThread = kGcThread + 1;

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
};

// Converts `data` (the whole Go trace). Errors: those of GoTraceReader (not a Go trace,
// unsupported version, damage naming the generation and what broke), and InternalError
// if the result does not decode (a bug of the importer).
absl::StatusOr<GoImportResult> ImportGoTrace(std::string data, const GoImportOptions& options);

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_IMPORT_H_
