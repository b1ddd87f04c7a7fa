#include "tools/analysis/report_model.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reader/sid_parts.h"

namespace tracewire::tools {
namespace {

using reader::Event;
using reader::EventKind;

// Times are clamped to this many nanoseconds either side of the first event (about 73
// years), so that no difference of two times overflows, whatever a hostile trace holds.
constexpr int64_t kMaxOffsetNs = int64_t{1} << 61;

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string ReportProcess::DisplayName() const {
  if (exe.empty() && command.empty()) return std::string(reader::SidLastComponent(sid));
  if (exe.empty() || command.empty()) return exe + command;
  return absl::StrCat(exe, " ", command);
}

ReportModel::ReportModel() = default;

int64_t ReportModel::RelativeNs(absl::Time t) {
  if (!have_start_) {
    have_start_ = true;
    start_ = t;
  }
  return std::clamp(absl::ToInt64Nanoseconds(t - start_), -kMaxOffsetNs, kMaxOffsetNs);
}

uint32_t ReportModel::NameId(absl::string_view category, absl::string_view label) {
  name_key_.clear();
  absl::StrAppend(&name_key_, category, "/", label);
  auto [it, inserted] = name_ids_.try_emplace(name_key_, static_cast<uint32_t>(names_.size()));
  if (inserted) names_.push_back(name_key_);
  return it->second;
}

ReportProcess& ReportModel::ProcessOf(const Event& e) {
  if (last_process_ >= 0 && processes_[last_process_]->sid == e.sid) {
    return *processes_[last_process_];
  }
  auto [it, inserted] =
      by_sid_.try_emplace(std::string(e.sid), static_cast<int>(processes_.size()));
  last_process_ = it->second;
  if (inserted) {
    auto process = std::make_unique<ReportProcess>();
    process->sid = std::string(e.sid);
    process->pid = reader::PidFromSidComponent(reader::SidLastComponent(e.sid)).value_or(0);
    process->stats = std::make_unique<TraceStats>();
    processes_.push_back(std::move(process));
  }
  return *processes_[last_process_];
}

void ReportModel::EndRegions(ReportThread& thread, ThreadState& state, int64_t keep_below,
                             int64_t ns) {
  while (!state.open.empty() && state.open.back().nesting >= keep_below) {
    const OpenRegion& region = state.open.back();
    const size_t depth = state.open.size() - 1;
    if (thread.rows.size() <= depth) thread.rows.resize(depth + 1);
    thread.rows[depth].push_back({region.begin_ns, std::max(ns, region.begin_ns), region.name});
    state.open.pop_back();
  }
}

void ReportModel::Add(const Event& e) {
  ++events_;
  stats_.AddEvent(e);
  ReportProcess& p = ProcessOf(e);
  const int process_index = last_process_;
  p.stats->AddEvent(e);
  const int64_t ns = RelativeNs(e.time);
  if (p.events++ == 0) {
    p.first_ns = p.last_ns = ns;
  } else {
    p.first_ns = std::min(p.first_ns, ns);
    p.last_ns = std::max(p.last_ns, ns);
  }
  ReportThread& thread = p.threads[e.thread_id];
  if (thread.name.empty()) thread.name = std::string(e.thread_name);
  ThreadState& state = open_[{process_index, e.thread_id}];

  // Follow the reader's region depth (regions git unwinds end here).
  EndRegions(thread, state, int64_t{e.nesting} + (e.kind == EventKind::kRegionLeave ? 1 : 0), ns);
  switch (e.kind) {
    case EventKind::kRegionEnter:
      state.open.push_back({ns, NameId(e.category, e.label), e.nesting});
      ++p.regions;
      break;
    case EventKind::kRegionLeave:
      // A leave whose enter came before the trace started has no region.
      if (!state.open.empty() && state.open.back().nesting == e.nesting) {
        EndRegions(thread, state, e.nesting, ns);
      }
      break;
    case EventKind::kThreadExit:
      EndRegions(thread, state, 0, ns);
      break;
    case EventKind::kStart:
      if (!e.argv.empty()) p.exe = std::string(Basename(e.argv.front()));
      p.argv = absl::StrJoin(e.argv, " ");
      break;
    case EventKind::kCmdName:
      p.command = std::string(e.cmd_name);
      break;
    case EventKind::kExit:
    case EventKind::kAtexit:
      p.exit_code = e.code;
      if (e.kind == EventKind::kAtexit) EndRegions(thread, state, 0, ns);
      break;
    case EventKind::kSignal:
      p.signal = static_cast<int64_t>(std::min<uint64_t>(e.signo, 1u << 30));
      EndRegions(thread, state, 0, ns);
      break;
    case EventKind::kError:
      thread.errors.push_back({ns, std::string(e.msg.value_or(e.fmt.value_or("error")))});
      break;
    case EventKind::kChildStart: {
      ReportChild child;
      child.begin_ns = child.end_ns = ns;
      std::vector<absl::string_view> argv;
      if (e.is_git_command) argv.push_back("git");
      argv.insert(argv.end(), e.argv.begin(), e.argv.end());
      child.name = absl::StrJoin(argv, " ");
      open_children_[{process_index, e.child_id}] = p.child_runs.size();
      p.child_runs.push_back(std::move(child));
      break;
    }
    case EventKind::kChildExit:
    case EventKind::kChildReady: {
      auto it = open_children_.find({process_index, e.child_id});
      if (it == open_children_.end()) break;
      ReportChild& child = p.child_runs[it->second];
      child.end_ns = std::max(ns, child.begin_ns);
      child.pid = e.pid;
      if (e.kind == EventKind::kChildExit) child.code = e.code;
      open_children_.erase(it);
      break;
    }
    default:
      break;
  }
}

void ReportModel::Finish() {
  for (auto& [key, state] : open_) {
    ReportProcess& p = *processes_[key.first];
    EndRegions(p.threads[key.second], state, 0, p.last_ns);
  }
  open_.clear();
  for (const auto& [key, index] : open_children_) {
    ReportChild& child = processes_[key.first]->child_runs[index];
    child.end_ns = std::max(child.begin_ns, processes_[key.first]->last_ns);
  }
  open_children_.clear();
  // The process tree: a child's sid is its parent's sid, '/', its own component.
  for (size_t i = 0; i < processes_.size(); ++i) {
    ReportProcess& p = *processes_[i];
    const size_t slash = p.sid.rfind('/');
    if (slash == std::string::npos) continue;
    auto parent = by_sid_.find(p.sid.substr(0, slash));
    if (parent == by_sid_.end()) continue;
    p.parent = parent->second;
    ReportProcess& parent_process = *processes_[p.parent];
    parent_process.children.push_back(static_cast<int>(i));
    // The parent's child run with this process's pid (the first one not yet linked).
    for (ReportChild& run : parent_process.child_runs) {
      if (run.process < 0 && run.pid > 0 && static_cast<uint32_t>(run.pid) == p.pid) {
        run.process = static_cast<int>(i);
        break;
      }
    }
  }
}

}  // namespace tracewire::tools
