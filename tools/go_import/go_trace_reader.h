// GoTraceReader: reads a Go execution trace (Go 1.22 or 1.23) generation by generation and
// delivers each generation's events in the order Go's own parser (internal/trace) does:
// the M batches merged by time, an event that cannot happen yet (its goroutine's or P's
// sequence number is not the next, its goroutine not in the right state) held back until
// another M's events make it possible, CPU samples interleaved by time, a Sync event after
// each generation, and every time made strictly increasing as Go's parser makes it.
// Memory: one generation's bytes (and the first batch of the next), tables and packed
// events: the input is read from its source a generation at a time.
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_READER_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reader/byte_source.h"
#include "tools/go_import/go_event.h"
#include "tools/go_import/go_event_log.h"
#include "tools/go_import/go_generation.h"
#include "tools/go_import/go_order.h"

namespace tracewire::go_trace {

struct GoReaderOptions {
  // Keep reading after a damaged generation: it is dropped whole (damage() says why) and
  // reading goes on with the next generation whose state can be known again (goroutines
  // and Ps restate their status at every generation's start).
  bool salvage = false;
  // Largest input accepted, in bytes.
  uint64_t max_bytes = uint64_t{16} << 30;
};

class GoTraceReader {
 public:
  // Checks the header. Errors: InvalidArgument (not a Go trace), Unimplemented naming the
  // version (not 1.22 or 1.23), DataLoss (a truncated header), ResourceExhausted (too big).
  // I/O errors of the source are returned as they are.
  static absl::StatusOr<std::unique_ptr<GoTraceReader>> Open(
      std::unique_ptr<reader::ByteSource> source, GoReaderOptions options = {});
  // Open over the whole trace in memory.
  static absl::StatusOr<std::unique_ptr<GoTraceReader>> Open(std::string data,
                                                             GoReaderOptions options = {});

  // The next generation's events in Go's order, its Sync event last; false at the end.
  // The events point into generation(), valid until the next call. Errors (DataLoss) name
  // the generation, the event and what broke; I/O errors of the source are returned as
  // they are.
  absl::StatusOr<bool> NextGeneration(GoEventLog* events);
  // The same, unpacked (for tools and tests: 112 bytes per event).
  absl::StatusOr<bool> NextGeneration(std::vector<GoEvent>* events);

  // The generation whose events were last returned.
  const GoGeneration& generation() const { return *generation_; }
  int minor_version() const { return minor_; }
  // Bytes read from the source so far.
  uint64_t bytes_read() const { return bytes_read_; }
  // The most bytes of the trace held at once (a generation's, and what was read past its
  // end), and the largest generation's size in the trace, header included: the first
  // stays below the second plus a read chunk and a batch (Go's batches are at most 64 KiB).
  uint64_t peak_buffered() const { return peak_buffered_; }
  uint64_t largest_generation() const { return largest_generation_; }
  // Salvage mode: why each dropped generation was dropped.
  const std::vector<std::string>& damage() const { return damage_; }

 private:
  GoTraceReader() = default;
  absl::Status OrderGeneration(GoEventLog* events);
  // Reads from the source until chunk_ holds `n` bytes or the input ends; false if it
  // holds fewer.
  absl::StatusOr<bool> Fill(size_t n);
  // Puts the next generation's bytes in chunk_: its batches, up to the first batch of the
  // generation after it, or to the end of the input or of what can be parsed (then
  // ReadGoGeneration names what broke); what was read beyond goes to next_.
  absl::Status TakeGeneration();

  std::unique_ptr<reader::ByteSource> source_;
  bool eof_ = false;
  uint64_t bytes_read_ = 0;
  std::string chunk_;        // the current generation's bytes (generation_ points into it)
  uint64_t chunk_base_ = 0;  // byte offset of chunk_[0] in the trace
  std::string next_;         // bytes read after chunk_ (at most a read and a batch)
  uint64_t peak_buffered_ = 0;
  uint64_t largest_generation_ = 0;
  int minor_ = 0;
  GoReaderOptions options_;
  std::unique_ptr<GoGeneration> generation_;
  std::unique_ptr<GoOrdering> ordering_ = std::make_unique<GoOrdering>();
  int64_t last_time_ = 0;
  bool done_ = false;
  std::vector<std::string> damage_;
};

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_READER_H_
