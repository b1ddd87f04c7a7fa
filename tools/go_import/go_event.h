// GoEvent: one event of a Go execution trace as Go's parser delivers it (internal/trace's
// Event): its type, time in nanoseconds, arguments after the timestamp, the scheduling
// context it happened in (M, P, G; -1 for none) and what the ordering smuggles in (the
// previous state of a status event, the parent and name of an ended task).
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_EVENT_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_EVENT_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "tools/go_import/go_generation.h"
#include "tools/go_import/go_trace_spec.h"

namespace tracewire::go_trace {

inline constexpr int64_t kNoId = -1;               // no M, P or goroutine
inline constexpr uint64_t kNoTask = ~uint64_t{0};  // no task (trace.NoTask)

struct GoEvent {
  uint8_t type = kEvNone;
  int64_t time = 0;
  uint64_t args[kMaxGoArgs] = {};
  uint64_t extra[2] = {};          // old state (status events, ProcSteal); TaskEnd: parent
  absl::string_view extra_string;  // TaskEnd: the task's name
  int64_t m = kNoId, p = kNoId, g = kNoId;
  const GoGeneration* table = nullptr;

  const GoEventSpec& spec() const { return GoSpec(type); }
  GoKind kind() const { return spec().kind; }
  // The event's own stack ID (0 for none).
  uint64_t stack() const {
    if (type == kEvCPUSample) return args[0];
    const int8_t i = spec().stack_arg;
    return i < 0 ? 0 : args[i];
  }
  // The string of string argument `i` ("" if unknown).
  absl::string_view StringArg(int i) const;
};

// The event as Go's Event.String() prints it (what `go tool trace -d=1` prints per
// event): the first line, then its stacks' frames.
std::string GoEventText(const GoEvent& event);

// The frames of a stack as Go prints them ("\tFUNC @ 0xPC\n\t\tFILE:LINE\n" per frame).
void AppendGoStackText(const GoGeneration& table, uint64_t stack, std::string* out);

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_EVENT_H_
