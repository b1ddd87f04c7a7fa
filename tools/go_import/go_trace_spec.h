// The event types of Go's execution trace v2 (the format `runtime/trace` writes from Go
// 1.22 on; versions 1.22 and 1.23 share one table, 1.23 adds four types): one row per
// type with its name, arguments, where its stack and string arguments are, the type that
// begins the range it ends or restates, and what Go's parser calls its kind. The reader,
// the ordering and the text of events are driven by this table.
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_SPEC_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_SPEC_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace tracewire::go_trace {

// Event type numbers, as the runtime writes them.
enum GoEventType : uint8_t {
  kEvNone = 0,
  kEvEventBatch = 1,
  kEvStacks = 2,
  kEvStack = 3,
  kEvStrings = 4,
  kEvString = 5,
  kEvCPUSamples = 6,
  kEvCPUSample = 7,
  kEvFrequency = 8,
  kEvProcsChange = 9,
  kEvProcStart = 10,
  kEvProcStop = 11,
  kEvProcSteal = 12,
  kEvProcStatus = 13,
  kEvGoCreate = 14,
  kEvGoCreateSyscall = 15,
  kEvGoStart = 16,
  kEvGoDestroy = 17,
  kEvGoDestroySyscall = 18,
  kEvGoStop = 19,
  kEvGoBlock = 20,
  kEvGoUnblock = 21,
  kEvGoSyscallBegin = 22,
  kEvGoSyscallEnd = 23,
  kEvGoSyscallEndBlocked = 24,
  kEvGoStatus = 25,
  kEvSTWBegin = 26,
  kEvSTWEnd = 27,
  kEvGCActive = 28,
  kEvGCBegin = 29,
  kEvGCEnd = 30,
  kEvGCSweepActive = 31,
  kEvGCSweepBegin = 32,
  kEvGCSweepEnd = 33,
  kEvGCMarkAssistActive = 34,
  kEvGCMarkAssistBegin = 35,
  kEvGCMarkAssistEnd = 36,
  kEvHeapAlloc = 37,
  kEvHeapGoal = 38,
  kEvGoLabel = 39,
  kEvUserTaskBegin = 40,
  kEvUserTaskEnd = 41,
  kEvUserRegionBegin = 42,
  kEvUserRegionEnd = 43,
  kEvUserLog = 44,
  // Go 1.23.
  kEvGoSwitch = 45,
  kEvGoSwitchDestroy = 46,
  kEvGoCreateBlocked = 47,
  kEvGoStatusStack = 48,
  kEvExperimentalBatch = 49,
  // Experimental events (the alloc/free experiment, Go 1.23): 128 to 136.
  kEvFirstExperimental = 128,
  kEvLastExperimental = 136,
  // Not a wire type: the Sync event the parser emits after each generation.
  kEvSync = 255,
};

// What Go's parser calls an event (trace.EventKind), in its order.
enum class GoKind : uint8_t {
  kBad,
  kSync,
  kMetric,
  kLabel,
  kStackSample,
  kRangeBegin,
  kRangeActive,
  kRangeEnd,
  kTaskBegin,
  kTaskEnd,
  kRegionBegin,
  kRegionEnd,
  kLog,
  kStateTransition,
  kExperimental,
};

// Go's name of a kind ("StateTransition", ...).
absl::string_view GoKindName(GoKind kind);

// The most arguments of an event after its timestamp.
inline constexpr int kMaxGoArgs = 4;

// One row of the table.
struct GoEventSpec {
  absl::string_view name;            // "" for an unknown type
  uint8_t args = 0;                  // arguments after the timestamp (timed events) or in all
  bool timed = false;                // appears in event batches, timestamp first
  int8_t stack_arg = -1;             // index (after the timestamp) of the event's own stack
  int8_t string_args[2] = {-1, -1};  // indexes of string-ID arguments
  uint8_t start_type = kEvNone;      // the begin event of the range it ends or restates
  GoKind kind = GoKind::kBad;
  bool go123 = false;  // Go 1.23 only
};

// The row of `type`; a row with an empty name if unknown. Total over 0..255.
const GoEventSpec& GoSpec(uint8_t type);

// Go's limits (internal/trace/event/go122): bytes of a batch, frames of a stack, bytes of
// a string.
inline constexpr uint64_t kGoMaxBatchSize = uint64_t{64} << 10;
// The trace's header ("go 1.NN trace\0\0\0"), and the most bytes a batch's header takes
// (the batch byte, an experiment's number, four uvarints).
inline constexpr size_t kGoHeaderSize = 16;
inline constexpr size_t kGoMaxBatchHeader = 2 + 4 * 10;
inline constexpr uint64_t kGoMaxFramesPerStack = 128;
inline constexpr uint64_t kGoMaxStringSize = uint64_t{1} << 10;

// Goroutine and proc statuses as written in GoStatus and ProcStatus events.
enum GoStatus : uint8_t { kGoBad, kGoRunnable, kGoRunning, kGoSyscall, kGoWaiting };
enum ProcStatus : uint8_t {
  kProcBad,
  kProcRunning,
  kProcIdle,
  kProcSyscall,
  kProcSyscallAbandoned
};

// The states Go's parser reports in state transitions (trace.GoState, trace.ProcState).
enum class GoState : uint8_t { kUndetermined, kNotExist, kRunnable, kRunning, kWaiting, kSyscall };
enum class ProcState : uint8_t { kUndetermined, kNotExist, kRunning, kIdle };
absl::string_view GoStateName(GoState state);
absl::string_view ProcStateName(ProcState state);
// The state a written status stands for; the status must be valid (1 to 4).
GoState GoStateOfStatus(uint64_t status);
ProcState ProcStateOfStatus(uint64_t status);

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_SPEC_H_
