#include "reader/targets/viewer_args.h"

#include <array>
#include <cstddef>
#include <iterator>

#include "reader/kind_table.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;

constexpr absl::string_view kArgNames[] = {
    "msg",      "repo",     "leave_msg", "child_id",  "class",   "hook",   "cd",     "use_shell",
    "argv",     "pid",      "code",      "ready",     "exe",     "signo",  "fmt",    "path",
    "ancestry", "name",     "hierarchy", "alias",     "exec_id", "thread", "scope",  "param",
    "value",    "worktree", "nesting",   "wire_type", "bytes",   "task",   "parent", "count",
};
static_assert(std::size(kArgNames) == static_cast<size_t>(ArgName::kNumArgNames));

// The rows of the table: every kind's arguments, in the order viewers show them.
using A = ArgName;
using S = ArgSource;
constexpr ViewerArg kExe[] = {{A::kExe, S::kMember, &Event::exe}};
constexpr ViewerArg kArgv[] = {{A::kArgv, S::kMember, &Event::argv}};
constexpr ViewerArg kCode[] = {{A::kCode, S::kMember, &Event::code}};
constexpr ViewerArg kSigno[] = {{A::kSigno, S::kMember, &Event::signo}};
constexpr ViewerArg kError[] = {{A::kMsg, S::kMember, &Event::msg},
                                {A::kFmt, S::kMember, &Event::fmt}};
constexpr ViewerArg kPrintf[] = {{A::kMsg, S::kMember, &Event::msg}};
constexpr ViewerArg kCmdPath[] = {{A::kPath, S::kMember, &Event::cmd_path}};
constexpr ViewerArg kCmdAncestry[] = {{A::kAncestry, S::kMember, &Event::ancestry}};
constexpr ViewerArg kCmdName[] = {{A::kName, S::kMember, &Event::cmd_name},
                                  {A::kHierarchy, S::kMember, &Event::cmd_hierarchy}};
constexpr ViewerArg kCmdMode[] = {{A::kName, S::kMember, &Event::cmd_mode}};
constexpr ViewerArg kAlias[] = {{A::kAlias, S::kMember, &Event::alias},
                                {A::kArgv, S::kMember, &Event::argv}};
constexpr ViewerArg kChildExit[] = {{A::kChildId, S::kMember, &Event::child_id},
                                    {A::kPid, S::kMember, &Event::pid},
                                    {A::kCode, S::kMember, &Event::code}};
constexpr ViewerArg kChildReady[] = {{A::kChildId, S::kMember, &Event::child_id},
                                     {A::kPid, S::kMember, &Event::pid},
                                     {A::kReady, S::kMember, &Event::ready}};
constexpr ViewerArg kExec[] = {{A::kExecId, S::kMember, &Event::exec_id},
                               {A::kExe, S::kMember, &Event::exec_exe},
                               {A::kArgv, S::kMember, &Event::argv}};
constexpr ViewerArg kExecResult[] = {{A::kExecId, S::kMember, &Event::exec_id},
                                     {A::kCode, S::kMember, &Event::code}};
constexpr ViewerArg kThread[] = {{A::kThread, S::kMember, &Event::thread_name}};
constexpr ViewerArg kDefParam[] = {{A::kScope, S::kMember, &Event::param_scope},
                                   {A::kParam, S::kMember, &Event::param},
                                   {A::kValue, S::kMember, &Event::param_value}};
constexpr ViewerArg kDefRepo[] = {{A::kRepo, S::kMember, &Event::repo},
                                  {A::kWorktree, S::kMember, &Event::worktree}};
constexpr ViewerArg kData[] = {
    {A::kValue, S::kDataValue}, {A::kNesting, S::kNesting}, {A::kRepo, S::kMember, &Event::repo}};
constexpr ViewerArg kSamplesLost[] = {{A::kCount, S::kMember, &Event::count}};
constexpr ViewerArg kExperimental[] = {{A::kWireType, S::kWireType},
                                       {A::kBytes, S::kExperimentalBytes}};

const reader::KindTable<absl::Span<const ViewerArg>>& Table() {
  static const reader::KindTable<absl::Span<const ViewerArg>> table = [] {
    reader::KindTable<absl::Span<const ViewerArg>> t;
    t[EventKind::kVersion] = kExe;
    t[EventKind::kStart] = kArgv;
    t[EventKind::kExit] = kCode;
    t[EventKind::kAtexit] = kCode;
    t[EventKind::kSignal] = kSigno;
    t[EventKind::kError] = kError;
    t[EventKind::kPrintf] = kPrintf;
    t[EventKind::kCmdPath] = kCmdPath;
    t[EventKind::kCmdAncestry] = kCmdAncestry;
    t[EventKind::kCmdName] = kCmdName;
    t[EventKind::kCmdMode] = kCmdMode;
    t[EventKind::kAlias] = kAlias;
    t[EventKind::kChildExit] = kChildExit;
    t[EventKind::kChildReady] = kChildReady;
    t[EventKind::kExec] = kExec;
    t[EventKind::kExecResult] = kExecResult;
    t[EventKind::kThreadStart] = kThread;
    t[EventKind::kThreadExit] = kThread;
    t[EventKind::kDefParam] = kDefParam;
    t[EventKind::kDefRepo] = kDefRepo;
    t[EventKind::kData] = kData;
    t[EventKind::kDataJson] = kData;
    t[EventKind::kCpuSamplesLost] = kSamplesLost;
    t[EventKind::kExperimental] = kExperimental;
    return t;
  }();
  return table;
}

bool IsProcessLifeEvent(EventKind kind) {
  return kind == EventKind::kVersion || kind == EventKind::kStart || kind == EventKind::kExit ||
         kind == EventKind::kAtexit || kind == EventKind::kSignal;
}

}  // namespace

absl::string_view ArgNameText(ArgName name) { return kArgNames[static_cast<size_t>(name)]; }

absl::Span<const ViewerArg> ViewerArgsOf(EventKind kind) { return Table()[kind]; }

InstantStyle InstantStyleOf(const Event& e) {
  InstantStyle style;
  style.category = IsProcessLifeEvent(e.kind) ? "process" : "trace2";
  switch (e.kind) {
    case EventKind::kData:
    case EventKind::kDataJson:
      style.name = e.label;
      style.category = e.category;
      break;
    case EventKind::kPrintf:
      style.category = "printf";
      break;
    case EventKind::kError:
      style.category = "error";
      style.process_scope = true;
      break;
    default:
      break;
  }
  if (style.name.empty()) style.name = reader::EventKindName(e.kind);
  return style;
}

}  // namespace tracewire::targets
