#include "reader/event.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

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

absl::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kVersion:
      return "version";
    case EventKind::kTooManyFiles:
      return "too_many_files";
    case EventKind::kStart:
      return "start";
    case EventKind::kExit:
      return "exit";
    case EventKind::kSignal:
      return "signal";
    case EventKind::kAtexit:
      return "atexit";
    case EventKind::kError:
      return "error";
    case EventKind::kCmdPath:
      return "cmd_path";
    case EventKind::kCmdAncestry:
      return "cmd_ancestry";
    case EventKind::kCmdName:
      return "cmd_name";
    case EventKind::kCmdMode:
      return "cmd_mode";
    case EventKind::kAlias:
      return "alias";
    case EventKind::kChildStart:
      return "child_start";
    case EventKind::kChildExit:
      return "child_exit";
    case EventKind::kChildReady:
      return "child_ready";
    case EventKind::kExec:
      return "exec";
    case EventKind::kExecResult:
      return "exec_result";
    case EventKind::kThreadStart:
      return "thread_start";
    case EventKind::kThreadExit:
      return "thread_exit";
    case EventKind::kDefParam:
      return "def_param";
    case EventKind::kDefRepo:
      return "def_repo";
    case EventKind::kRegionEnter:
      return "region_enter";
    case EventKind::kRegionLeave:
      return "region_leave";
    case EventKind::kData:
      return "data";
    case EventKind::kDataJson:
      return "data_json";
    case EventKind::kPrintf:
      return "printf";
    case EventKind::kThTimer:
      return "th_timer";
    case EventKind::kTimer:
      return "timer";
    case EventKind::kThCounter:
      return "th_counter";
    case EventKind::kCounter:
      return "counter";
    case EventKind::kExperimental:
      return "experimental";
  }
  return "unknown";
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
