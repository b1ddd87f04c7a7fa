#include "tools/analysis/report_model.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reader/sid_parts.h"
#include "reader/targets/folded_target.h"

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

class ReportModel::Listener : public reader::TrackListener {
 public:
  explicit Listener(ReportModel* model) : m_(model) {}

  void OnProcessBegin(const reader::ProcessTrack& track, const Event& first) {
    auto process = std::make_unique<ReportProcess>();
    process->sid = track.sid;
    process->pid = reader::PidFromSidComponent(reader::SidLastComponent(track.sid)).value_or(0);
    process->stats = std::make_unique<TraceStats>();
    m_->processes_.push_back(std::move(process));
  }

  void OnSample(const Event& e, const reader::SampleContext& at) {
    std::vector<std::string> frames;
    frames.reserve(e.stack.size());
    for (size_t i = e.stack.size(); i-- > 0;)
      frames.push_back(targets::FoldedFrameName(e.stack[i]));
    m_->processes_[at.process]->flame.Add(frames, e.count);
    // Once per region name, even when regions of one name nest.
    std::vector<uint32_t> names;
    for (const reader::Slice& region : at.regions) {
      const uint32_t name = m_->open_regions_[region.slot].name;
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      names.push_back(name);
      m_->region_flames_[name].Add(frames, e.count);
    }
  }

  void OnSliceBegin(const reader::Slice& slice, const Event& e) {
    ReportProcess& p = *m_->processes_[slice.process];
    switch (slice.kind) {
      case reader::SliceKind::kThread:
        if (m_->threads_.size() <= slice.thread) m_->threads_.resize(slice.thread + 1);
        m_->threads_[slice.thread] = &p.threads[e.thread_id];
        return;
      case reader::SliceKind::kRegion:
        if (m_->open_regions_.size() <= slice.slot) m_->open_regions_.resize(slice.slot + 1);
        m_->open_regions_[slice.slot] = {m_->now_ns_, m_->NameId(e.category, e.label)};
        ++p.regions;
        return;
      case reader::SliceKind::kChild: {
        ReportChild child;
        child.begin_ns = child.end_ns = m_->now_ns_;
        std::vector<absl::string_view> argv;
        if (e.is_git_command) argv.push_back("git");
        argv.insert(argv.end(), e.argv.begin(), e.argv.end());
        child.name = absl::StrJoin(argv, " ");
        if (m_->open_children_.size() <= slice.slot) m_->open_children_.resize(slice.slot + 1);
        m_->open_children_[slice.slot] = p.child_runs.size();
        p.child_runs.push_back(std::move(child));
        return;
      }
      case reader::SliceKind::kExec:
        return;
    }
  }

  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end) {
    ReportProcess& p = *m_->processes_[slice.process];
    // Slices still open at the end of the trace end at their process's last time.
    const int64_t ns = end.cause == reader::SliceEnd::kFinish ? p.last_ns : m_->now_ns_;
    switch (slice.kind) {
      case reader::SliceKind::kRegion: {
        const OpenRegion& region = m_->open_regions_[slice.slot];
        ReportThread& thread = *m_->threads_[slice.thread];
        if (thread.rows.size() <= slice.depth) thread.rows.resize(slice.depth + 1);
        thread.rows[slice.depth].push_back(
            {region.begin_ns, std::max(ns, region.begin_ns), region.name});
        return;
      }
      case reader::SliceKind::kChild: {
        ReportChild& child = p.child_runs[m_->open_children_[slice.slot]];
        child.end_ns = std::max(ns, child.begin_ns);
        if (end.cause == reader::SliceEnd::kEndEvent) {
          child.pid = end.event->pid;
          if (end.event->kind == EventKind::kChildExit) child.code = end.event->code;
        }
        return;
      }
      case reader::SliceKind::kThread:
      case reader::SliceKind::kExec:
        return;
    }
  }

  void OnEvent(const Event& e, const reader::EventTracks& at) {
    at_ = at;
    ReportProcess& p = *m_->processes_[at.process];
    p.stats->AddEvent(e);
    const int64_t ns = m_->now_ns_;
    if (p.events++ == 0) {
      p.first_ns = p.last_ns = ns;
    } else {
      p.first_ns = std::min(p.first_ns, ns);
      p.last_ns = std::max(p.last_ns, ns);
    }
    ReportThread& thread = *m_->threads_[at.thread];
    if (thread.name.empty()) thread.name = std::string(e.thread_name);
    switch (e.kind) {
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
        break;
      case EventKind::kSignal:
        p.signal = static_cast<int64_t>(std::min<uint64_t>(e.signo, 1u << 30));
        break;
      case EventKind::kError:
        thread.errors.push_back({ns, std::string(e.msg.value_or(e.fmt.value_or("error")))});
        break;
      default:
        break;
    }
  }

  // Where the last event was.
  const reader::EventTracks& at() const { return at_; }

 private:
  ReportModel* m_;
  reader::EventTracks at_;
};

void ReportModel::Add(const Event& e) {
  ++events_;
  stats_.AddEvent(e);
  now_ns_ = RelativeNs(e.time);
  // The track model follows the reader's region depth (regions git unwinds end there, on
  // atexit and thread_exit among others).
  Listener listener(this);
  tracks_.Add(e, listener);
  // A signal ends the process: the thread's regions end there.
  if (e.kind == EventKind::kSignal)
    tracks_.EndThreadRegions(listener.at().thread, e.time, listener);
}

void ReportModel::Finish() {
  // Regions and child runs still open end at their process's last time.
  Listener listener(this);
  tracks_.Finish(listener);
  // The process tree: a child's sid is its parent's sid, '/', its own component.
  for (size_t i = 0; i < processes_.size(); ++i) {
    ReportProcess& p = *processes_[i];
    const size_t slash = p.sid.rfind('/');
    if (slash == std::string::npos) continue;
    const std::optional<uint32_t> parent = tracks_.FindProcess(p.sid.substr(0, slash));
    if (!parent.has_value()) continue;
    p.parent = static_cast<int>(*parent);
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
