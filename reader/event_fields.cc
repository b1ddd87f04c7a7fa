#include "reader/event_fields.h"

#include <array>
#include <utility>

#include "reader/kind_table.h"

namespace tracewire::reader {
namespace {

using format::EventType;

// The rows' bindings, indexed by wire type number (empty optional: no bindings).
struct BindingTable {
  std::array<std::optional<std::vector<FieldBinding>>, 256> rows;
  KindTable<const std::vector<FieldBinding>*> kinds;

  void Add(EventType type, std::vector<FieldBinding> fields) {
    rows[static_cast<uint8_t>(type)] = std::move(fields);
  }
};

BindingTable* BuildTable() {
  using E = EventType;
  using Ev = Event;
  auto* t = new BindingTable();
  t->Add(E::kVersion, {{"exe_string", "exe", &Ev::exe}});
  t->Add(E::kTooManyFiles, {});
  t->Add(E::kStart, {{"argv_strlist", "argv", &Ev::argv}});
  t->Add(E::kExit, {{"code", "code", &Ev::code}});
  t->Add(E::kSignal, {{"signo", "signo", &Ev::signo}});
  t->Add(E::kAtexit, {{"code", "code", &Ev::code}});
  t->Add(E::kError, {{"msg_string", "", &Ev::msg}, {"fmt_string", "fmt", &Ev::fmt}});
  t->Add(E::kCmdPath, {{"path_string", "path", &Ev::cmd_path}});
  t->Add(E::kCmdAncestry, {{"ancestry_strlist", "ancestry", &Ev::ancestry}});
  t->Add(E::kCmdName, {{"name_string", "name", &Ev::cmd_name},
                       {"hierarchy_string", "hierarchy", &Ev::cmd_hierarchy}});
  t->Add(E::kCmdMode, {{"mode_string", "mode", &Ev::cmd_mode}});
  t->Add(E::kAlias, {{"alias_string", "alias", &Ev::alias}, {"argv_strlist", "argv", &Ev::argv}});
  t->Add(E::kChildStart, {{"child_id", "child_id", &Ev::child_id},
                          {"", "class", &Ev::child_class},
                          {"hook_string", "hook", &Ev::hook_name},
                          {"cd_string", "cd", &Ev::cd},
                          {"", "use_shell", &Ev::use_shell},
                          {"", "git", &Ev::is_git_command},
                          {"argv_strlist", "argv", &Ev::argv}});
  t->Add(E::kChildExit, {{"child_id", "child_id", &Ev::child_id},
                         {"pid", "pid", &Ev::pid},
                         {"code", "code", &Ev::code},
                         {"elapsed", "", &Ev::t_rel}});
  t->Add(E::kChildReady, {{"child_id", "child_id", &Ev::child_id},
                          {"pid", "pid", &Ev::pid},
                          {"", "ready", &Ev::ready},
                          {"elapsed", "", &Ev::t_rel}});
  t->Add(E::kExec, {{"exec_id", "exec_id", &Ev::exec_id},
                    {"exe_string", "exe", &Ev::exec_exe},
                    {"argv_strlist", "argv", &Ev::argv}});
  t->Add(E::kExecResult, {{"exec_id", "", &Ev::exec_id}, {"code", "code", &Ev::code}});
  // thread_start's name and tid go to the thread (and so to thread_name and thread_tid):
  // semantics.
  t->Add(E::kThreadStart, {});
  t->Add(E::kThreadExit, {});
  t->Add(E::kDefParam, {{"scope_string", "scope", &Ev::param_scope},
                        {"param_string", "param", &Ev::param},
                        {"value_string", "value", &Ev::param_value}});
  t->Add(E::kDefRepo, {{"repo_id", "", &Ev::repo}, {"worktree_string", "worktree", &Ev::worktree}});
  t->Add(E::kRegionEnter, {{"msg_string", "", &Ev::msg}});
  t->Add(E::kRegionLeave, {{"msg_string", "", &Ev::msg}});
  t->Add(E::kData, {{"value_string", "value", &Ev::value_string}});
  // value_string holds the decimal form (set with value_int).
  t->Add(E::kDataInt, {{"value", "", &Ev::value_int}, {"", "value", &Ev::value_string}});
  t->Add(E::kDataJson, {{"json_string", "value", &Ev::value_string}});
  t->Add(E::kPrintf, {{"msg_string", "", &Ev::msg}});
  const std::vector<FieldBinding> timer = {{"intervals", "intervals", &Ev::intervals},
                                           {"total", "total", &Ev::t_total},
                                           {"min", "min", &Ev::t_min},
                                           {"max", "max", &Ev::t_max}};
  t->Add(E::kThTimer, timer);
  t->Add(E::kTimer, timer);
  t->Add(E::kThCounter, {{"value", "count", &Ev::count}});
  t->Add(E::kCounter, {{"value", "count", &Ev::count}});
  t->Add(E::kTaskBegin, {{"task", "task", &Ev::task_id}, {"parent", "parent", &Ev::parent_task}});
  t->Add(E::kTaskEnd, {{"task", "task", &Ev::task_id}});
  t->Add(E::kTaskAdopt, {{"task", "task", &Ev::task_id}});
  t->Add(E::kTaskRelease, {{"task", "task", &Ev::task_id}});
  t->Add(E::kGauge, {{"value", "value", &Ev::value_int}, {"unit_string", "unit", &Ev::unit}});
  // The sampled stack is the event's `stack` (semantics, as stack_ref's).
  t->Add(E::kCpuSample, {{"weight", "weight", &Ev::count}});
  t->Add(E::kCpuSamplesLost, {{"count", "count", &Ev::count}});
  for (size_t k = 0; k + 1 < kNumEventKinds; ++k) {
    const format::EventSpec* spec = IsTrace2Kind(EventKind(k))
                                        ? format::LookupTrace2Event(EventKindName(EventKind(k)))
                                        : format::LookupSpecByName(EventKindName(EventKind(k)));
    if (spec == nullptr) continue;
    const auto& row = t->rows[static_cast<uint8_t>(spec->type)];
    t->kinds[EventKind(k)] = row.has_value() ? &*row : nullptr;
  }
  return t;
}

const BindingTable& Table() {
  static const BindingTable* table = BuildTable();
  return *table;
}

}  // namespace

const std::vector<FieldBinding>* FieldBindings(format::EventType type) {
  const auto& row = Table().rows[static_cast<uint8_t>(type)];
  return row.has_value() ? &*row : nullptr;
}

const std::vector<FieldBinding>* KindFieldBindings(EventKind kind) { return Table().kinds[kind]; }

FieldConversion ConversionOf(format::ArgType arg, const EventMember& member) {
  using format::ArgType;
  using Sv = absl::string_view;
  switch (arg) {
    case ArgType::kString:
      if (std::holds_alternative<Sv Event::*>(member)) return FieldConversion::kString;
      if (std::holds_alternative<std::optional<Sv> Event::*>(member)) {
        return FieldConversion::kOptString;
      }
      break;
    case ArgType::kStringList:
      if (std::holds_alternative<std::vector<Sv> Event::*>(member)) {
        return FieldConversion::kStringList;
      }
      break;
    case ArgType::kInt:
      if (std::holds_alternative<int64_t Event::*>(member)) return FieldConversion::kZigzag;
      break;
    case ArgType::kUint:
      if (std::holds_alternative<uint64_t Event::*>(member)) return FieldConversion::kUint;
      if (std::holds_alternative<std::optional<int64_t> Event::*>(member)) {
        return FieldConversion::kUintToOptInt;
      }
      break;
    case ArgType::kDuration:
      if (std::holds_alternative<double Event::*>(member)) return FieldConversion::kSeconds;
      if (std::holds_alternative<std::optional<double> Event::*>(member)) {
        return FieldConversion::kOptSeconds;
      }
      break;
    default:
      break;
  }
  return FieldConversion::kNone;
}

}  // namespace tracewire::reader
