#include "reader/event.h"

#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "format/event_spec.h"

namespace tracewire::reader {
namespace {

std::string Opt(const std::optional<absl::string_view>& value) {
  return value.has_value() ? absl::StrCat("\"", *value, "\"") : "none";
}

std::string Views(const std::vector<absl::string_view>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ",", "\"", items[i], "\"");
  }
  return absl::StrCat(out, "]");
}

}  // namespace

namespace {

using format::EventType;

// The wire row of each EventKind whose name is the kind's Trace2 event name (data_int, the
// other row that decodes to kData, shares the data row's Trace2 event).
constexpr EventType kKindRows[] = {
    EventType::kVersion,     EventType::kTooManyFiles, EventType::kStart,
    EventType::kExit,        EventType::kSignal,       EventType::kAtexit,
    EventType::kError,       EventType::kCmdPath,      EventType::kCmdAncestry,
    EventType::kCmdName,     EventType::kCmdMode,      EventType::kAlias,
    EventType::kChildStart,  EventType::kChildExit,    EventType::kChildReady,
    EventType::kExec,        EventType::kExecResult,   EventType::kThreadStart,
    EventType::kThreadExit,  EventType::kDefParam,     EventType::kDefRepo,
    EventType::kRegionEnter, EventType::kRegionLeave,  EventType::kData,
    EventType::kDataJson,    EventType::kPrintf,       EventType::kThTimer,
    EventType::kTimer,       EventType::kThCounter,    EventType::kCounter,
};
static_assert(std::size(kKindRows) == static_cast<size_t>(EventKind::kExperimental),
              "one row per Trace2 EventKind");

// EventKind of every wire type, derived from the spec table's Trace2 event names.
struct KindsOfTypes {
  EventKind kind[256];
  KindsOfTypes() {
    for (EventKind& k : kind) k = EventKind::kExperimental;
    for (size_t k = 0; k < std::size(kKindRows); ++k) {
      const absl::string_view name = format::LookupSpec(kKindRows[k])->trace2_event;
      for (const format::EventSpec& spec : format::AllSpecs()) {
        if (spec.trace2_event == name) kind[static_cast<uint8_t>(spec.type)] = EventKind(k);
      }
    }
  }
};

}  // namespace

absl::string_view EventKindName(EventKind kind) {
  const size_t k = static_cast<size_t>(kind);
  if (k >= std::size(kKindRows)) return "experimental";
  return format::LookupSpec(kKindRows[k])->trace2_event;
}

EventKind EventKindOfType(uint8_t type) {
  static const KindsOfTypes* table = new KindsOfTypes();
  return table->kind[type];
}

std::optional<EventKind> EventKindByName(absl::string_view name) {
  const format::EventSpec* spec = format::LookupTrace2Event(name);
  if (spec == nullptr) return std::nullopt;
  return EventKindOfType(static_cast<uint8_t>(spec->type));
}

std::string FrameText(const SymbolFrame& frame) {
  std::string out =
      frame.func.empty() ? absl::StrFormat("0x%x", frame.pc) : std::string(frame.func);
  if (!frame.file.empty()) {
    absl::StrAppend(&out, " (", frame.file);
    if (frame.line != 0) absl::StrAppend(&out, ":", frame.line);
    out += ")";
  }
  if (!frame.module.empty()) {
    absl::StrAppendFormat(&out, " [%s+0x%x]", frame.module, frame.module_offset);
  }
  return out;
}

std::string Event::DebugString() const {
  std::string out = absl::StrFormat(
      "%s gen=%d sid=%s d%d thread=%s time=%s file=%s:%d repo=%s t_abs=%.6f t_rel=%s "
      "nesting=%d cat=%s label=%s msg=%s",
      EventKindName(kind), gen, sid, depth, thread_name,
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", time, absl::UTCTimeZone()), file, line,
      repo.has_value() ? absl::StrCat(*repo) : "none", t_abs,
      t_rel.has_value() ? absl::StrFormat("%.6f", *t_rel) : "none", nesting, category, label,
      Opt(msg));
  switch (kind) {
    case EventKind::kVersion:
      absl::StrAppend(&out, " exe=", exe);
      break;
    case EventKind::kStart:
      absl::StrAppend(&out, " argv=", Views(argv));
      break;
    case EventKind::kExit:
    case EventKind::kAtexit:
    case EventKind::kExecResult:
      absl::StrAppend(&out, " code=", code);
      break;
    case EventKind::kSignal:
      absl::StrAppend(&out, " signo=", signo);
      break;
    case EventKind::kError:
      absl::StrAppend(&out, " fmt=", Opt(fmt));
      break;
    case EventKind::kCmdPath:
      absl::StrAppend(&out, " path=", cmd_path);
      break;
    case EventKind::kCmdAncestry:
      absl::StrAppend(&out, " ancestry=", Views(ancestry));
      break;
    case EventKind::kCmdName:
      absl::StrAppend(&out, " name=", cmd_name, " hierarchy=", Opt(cmd_hierarchy));
      break;
    case EventKind::kCmdMode:
      absl::StrAppend(&out, " mode=", cmd_mode);
      break;
    case EventKind::kAlias:
      absl::StrAppend(&out, " alias=", alias, " argv=", Views(argv));
      break;
    case EventKind::kChildStart:
      absl::StrAppend(&out, " child_id=", child_id, " class=", child_class,
                      " hook=", Opt(hook_name), " cd=", Opt(cd), " use_shell=", use_shell,
                      " git=", is_git_command, " argv=", Views(argv));
      break;
    case EventKind::kChildExit:
      absl::StrAppend(&out, " child_id=", child_id, " pid=", pid, " code=", code);
      break;
    case EventKind::kChildReady:
      absl::StrAppend(&out, " child_id=", child_id, " pid=", pid, " ready=", ready);
      break;
    case EventKind::kExec:
      absl::StrAppend(&out, " exec_id=", exec_id, " exe=", Opt(exec_exe), " argv=", Views(argv));
      break;
    case EventKind::kDefParam:
      absl::StrAppend(&out, " scope=", param_scope, " param=", param, " value=", Opt(param_value));
      break;
    case EventKind::kDefRepo:
      absl::StrAppend(&out, " worktree=", worktree);
      break;
    case EventKind::kData:
    case EventKind::kDataJson:
      absl::StrAppend(&out, " value=", value_string);
      break;
    case EventKind::kThTimer:
    case EventKind::kTimer:
      absl::StrAppend(&out, absl::StrFormat(" intervals=%d total=%.6f min=%.6f max=%.6f", intervals,
                                            t_total, t_min, t_max));
      break;
    case EventKind::kThCounter:
    case EventKind::kCounter:
      absl::StrAppend(&out, " count=", count);
      break;
    case EventKind::kExperimental:
      absl::StrAppend(&out, " type=", wire_type, " bytes=", experimental_data.size());
      break;
    default:
      break;
  }
  if (!stack.empty()) absl::StrAppend(&out, " stack=", stack.size(), " frames");
  return out;
}

}  // namespace tracewire::reader
