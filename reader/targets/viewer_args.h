// Viewer arguments: the one mapping from a reader::Event's payload to the arguments a trace
// viewer shows with it (Chrome's "args" object, Perfetto's debug annotations). A kind's row
// lists its arguments in order, each naming the viewer's key and the Event member (from the
// kind's field bindings, reader/event_fields.h) or derived value it shows; a format writes
// them through a sink, so a new event kind gets a row here and every viewer shows it.
// The per-format code keeps only what the format itself needs (phases, ids, packets).
#ifndef TRACEWIRE_READER_TARGETS_VIEWER_ARGS_H_
#define TRACEWIRE_READER_TARGETS_VIEWER_ARGS_H_

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "reader/event.h"
#include "reader/event_fields.h"
#include "reader/targets/json_check.h"

namespace tracewire::targets {

// The names viewers show arguments under (instant and slice arguments alike).
enum class ArgName : uint8_t {
  kMsg,
  kRepo,
  kLeaveMsg,
  kChildId,
  kClass,
  kHook,
  kCd,
  kUseShell,
  kArgv,
  kPid,
  kCode,
  kReady,
  kExe,
  kSigno,
  kFmt,
  kPath,
  kAncestry,
  kName,
  kHierarchy,
  kAlias,
  kExecId,
  kThread,
  kScope,
  kParam,
  kValue,
  kWorktree,
  kNesting,
  kWireType,
  kBytes,
  kTask,
  kParent,
  kCount,
  kNumArgNames,  // not a name: the number of names
};

// The text of `name` ("msg", "child_id", ...).
absl::string_view ArgNameText(ArgName name);

// Where an argument's value comes from.
enum class ArgSource : uint8_t {
  kMember,             // the Event member `member` (an optional one only when set)
  kDataValue,          // data's value: an int, JSON text (if valid) or a string
  kNesting,            // Event::nesting
  kWireType,           // Event::wire_type
  kExperimentalBytes,  // the size of Event::experimental_data
};

// One argument of a kind's instant.
struct ViewerArg {
  ArgName name;
  ArgSource source = ArgSource::kMember;
  reader::EventMember member = &reader::Event::msg;  // for kMember
};

// The arguments an instant of `kind` carries, in the order viewers show them (empty for
// kinds shown without arguments or not as instants).
absl::Span<const ViewerArg> ViewerArgsOf(reader::EventKind kind);

// How an instant of an event is named and placed.
struct InstantStyle {
  absl::string_view name;      // data's label, else the kind's name
  absl::string_view category;  // "process", "trace2", "printf", "error" or data's category
  bool process_scope = false;  // error: on the process, not the thread
};

// The style of `e`'s instant.
InstantStyle InstantStyleOf(const reader::Event& e);

// Writes `e`'s arguments through `sink`, which has
//   Str(ArgName, string_view), Int(ArgName, int64_t), Uint(ArgName, uint64_t),
//   List(ArgName, const std::vector<string_view>&), Json(ArgName, string_view).
template <typename Sink>
void VisitViewerArgs(const reader::Event& e, Sink& sink);

// ---- Implementation details. ----

template <typename Sink>
struct ViewerMemberWriter {
  Sink& sink;
  ArgName name;
  void operator()(absl::string_view value) { sink.Str(name, value); }
  void operator()(const std::optional<absl::string_view>& value) {
    if (value.has_value()) sink.Str(name, *value);
  }
  void operator()(const std::vector<absl::string_view>& value) { sink.List(name, value); }
  void operator()(int64_t value) { sink.Int(name, value); }
  void operator()(const std::optional<int64_t>& value) {
    if (value.has_value()) sink.Int(name, *value);
  }
  void operator()(uint64_t value) { sink.Uint(name, value); }
  // Kinds bind no viewer argument to these types (ViewerArgsOf's table test checks).
  void operator()(double) {}
  void operator()(const std::optional<double>&) {}
  void operator()(bool) {}
};

template <typename Sink>
void VisitViewerArgs(const reader::Event& e, Sink& sink) {
  for (const ViewerArg& arg : ViewerArgsOf(e.kind)) {
    switch (arg.source) {
      case ArgSource::kMember:
        std::visit(
            [&](auto member) {
              ViewerMemberWriter<Sink>{sink, arg.name}(e.*member);
            },
            arg.member);
        break;
      case ArgSource::kDataValue:
        if (e.value_kind == reader::ValueKind::kInt) {
          sink.Int(arg.name, e.value_int);
        } else if (e.value_kind == reader::ValueKind::kJson && IsJsonText(e.value_string)) {
          sink.Json(arg.name, e.value_string);
        } else {
          sink.Str(arg.name, e.value_string);
        }
        break;
      case ArgSource::kNesting:
        sink.Int(arg.name, e.nesting);
        break;
      case ArgSource::kWireType:
        sink.Int(arg.name, e.wire_type);
        break;
      case ArgSource::kExperimentalBytes:
        sink.Int(arg.name, static_cast<int64_t>(e.experimental_data.size()));
        break;
    }
  }
}

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_VIEWER_ARGS_H_
