// GoTraceReader: reads a Go execution trace (Go 1.22 or 1.23) generation by generation and
// delivers each generation's events in the order Go's own parser (internal/trace) does:
// the M batches merged by time, an event that cannot happen yet (its goroutine's or P's
// sequence number is not the next, its goroutine not in the right state) held back until
// another M's events make it possible, CPU samples interleaved by time, a Sync event after
// each generation, and every time made strictly increasing as Go's parser makes it.
// Memory: the input, plus one generation's tables and events.
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_READER_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/go_import/go_event.h"
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
  static absl::StatusOr<std::unique_ptr<GoTraceReader>> Open(std::string data,
                                                             GoReaderOptions options = {});

  // The next generation's events in Go's order, its Sync event last; false at the end.
  // The events point into generation(), valid until the next call. Errors (DataLoss) name
  // the generation, the event and what broke.
  absl::StatusOr<bool> NextGeneration(std::vector<GoEvent>* events);

  // The generation whose events were last returned.
  const GoGeneration& generation() const { return *generation_; }
  int minor_version() const { return minor_; }
  uint64_t size() const { return data_.size(); }
  // Salvage mode: why each dropped generation was dropped.
  const std::vector<std::string>& damage() const { return damage_; }

 private:
  GoTraceReader() = default;
  absl::Status OrderGeneration(std::vector<GoEvent>* events);

  std::string data_;
  size_t pos_ = 0;
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
