// GoOrdering: the state machine Go's parser uses to put the events of a generation's
// per-M batches in one valid order (internal/trace's ordering). It tracks each
// goroutine's and P's status and sequence number, each M's current P and goroutine, the
// GC's sequence, the ranges in flight and the active tasks. Advance tells whether an
// event can happen now (a GoStart whose goroutine is not yet runnable, or whose sequence
// number is not the next, must wait for another M's events); events that can are queued,
// with any events they imply (a GoSwitch is also a GoBlock and a GoStart).
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_ORDER_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_ORDER_H_

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/statusor.h"
#include "tools/go_import/go_event.h"
#include "tools/go_import/go_generation.h"

namespace tracewire::go_trace {

class GoOrdering {
 public:
  // Tries to advance `ev` (read from M `m`'s batch of generation `gen`): true if it
  // happened (it and what it implies are queued, with their context), false if it must
  // wait. An error is a trace that no order makes valid; the message says why.
  absl::StatusOr<bool> Advance(GoEvent* ev, GoGeneration* gen, int64_t m);

  // The next queued event, false if none.
  bool Next(GoEvent* out);

  // Resources known (for limits and tests).
  size_t goroutines() const { return g_states_.size(); }

 private:
  struct Seq {
    uint64_t gen = 0, seq = 0;
    bool Succeeds(const Seq& b) const { return gen == b.gen && seq == b.seq + 1; }
  };
  struct Range {
    uint8_t type = 0;  // the begin event's type
    uint64_t desc = 0;
    bool operator==(const Range&) const = default;
  };
  struct RangeState {
    std::vector<Range> in_flight;
    bool Has(const Range& r) const;
    absl::Status Begin(const Range& r);
    absl::Status Active(const Range& r, bool initial_gen);
    absl::StatusOr<uint64_t> End(uint8_t end_type);
  };
  struct GState {
    uint8_t status = 0;
    Seq seq;
    std::vector<std::pair<uint64_t, std::string>> regions;  // task, name
    RangeState ranges;
  };
  struct PState {
    uint8_t status = 0;
    Seq seq;
    RangeState ranges;
  };
  struct MState {
    int64_t g = kNoId, p = kNoId;
  };
  struct Ctx {
    int64_t g = kNoId, p = kNoId, m = kNoId;
  };
  using Result = absl::StatusOr<bool>;

  Result Dispatch(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);
  void Push(const GoEvent& ev, const Ctx& ctx, GoGeneration* gen);
  Result ProcEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);
  Result GoStatusEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);
  Result GoroutineEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);
  Result SyscallEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);
  Result UserEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);
  Result GcEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);
  Result RangeEvent(GoEvent* ev, GoGeneration* gen, uint64_t g, Ctx cur, Ctx* next);

  absl::node_hash_map<int64_t, GState> g_states_;
  absl::node_hash_map<int64_t, PState> p_states_;
  absl::node_hash_map<int64_t, MState> m_states_;
  absl::flat_hash_map<uint64_t, std::pair<std::string, uint64_t>> active_tasks_;  // name, parent
  uint64_t gc_seq_ = 0;
  enum class Gc : uint8_t { kUndetermined, kNotRunning, kRunning } gc_ = Gc::kUndetermined;
  uint64_t initial_gen_ = 0;
  std::deque<GoEvent> queue_;
};

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_ORDER_H_
