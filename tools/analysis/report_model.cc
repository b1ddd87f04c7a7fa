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

ReportModel::ReportModel(size_t compact_rows_from) : compact_rows_from_(compact_rows_from) {}

void ReportModel::CompactRow(const ReportProcess& p, std::vector<ReportRegion>* row) {
  const double span_ns = static_cast<double>(std::max<int64_t>(p.last_ns - p.first_ns, 1));
  const double half_pixel_ns = span_ns / kCompactedWidth / 2;
  auto is_run = [&](const ReportRegion& r) {
    return r.count > 1 || static_cast<double>(r.end_ns - r.begin_ns) < half_pixel_ns;
  };
  std::vector<ReportRegion>& regions = *row;
  size_t kept = 0;
  for (size_t i = 0; i < regions.size(); ++i) {
    const ReportRegion r = regions[i];
    if (kept > 0 && is_run(r) && is_run(regions[kept - 1]) &&
        static_cast<double>(r.begin_ns - regions[kept - 1].end_ns) <= half_pixel_ns) {
      ReportRegion& run = regions[kept - 1];
      if (run.count == 1) run.busy_ns = run.end_ns - run.begin_ns;
      run.busy_ns += r.count > 1 ? r.busy_ns : r.end_ns - r.begin_ns;
      run.count += r.count;
      run.end_ns = std::max(run.end_ns, r.end_ns);
      continue;
    }
    regions[kept++] = r;
  }
  regions.resize(kept);
}

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

uint32_t ReportModel::TaskLane(uint32_t process, uint32_t name, bool begun_before_trace) {
  std::vector<ReportTaskLane>& lanes = processes_[process]->task_lanes;
  auto [it, inserted] =
      lane_ids_.try_emplace(std::make_pair(process, name), static_cast<uint32_t>(lanes.size()));
  if (inserted) {
    lanes.emplace_back();
    lanes.back().name = name;
    lanes.back().begun_before_trace = begun_before_trace;
  }
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
        if (m_->thread_ids_.size() <= slice.thread) m_->thread_ids_.resize(slice.thread + 1);
        m_->thread_ids_[slice.thread] = e.thread_id;
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
      case reader::SliceKind::kTask: {
        const uint32_t lane = m_->TaskLane(slice.process, m_->NameId(e.category, e.label));
        ++p.task_lanes[lane].tasks;
        m_->task_lane_of_[{slice.process, slice.id}] = lane;
        OpenTaskAt(slice.slot, lane);
        return;
      }
      case reader::SliceKind::kTaskSegment: {
        // The segment belongs to the lane of its task, if the trace holds the task's begin.
        const auto it = m_->task_lane_of_.find({slice.process, slice.id});
        OpenTaskAt(slice.slot, it != m_->task_lane_of_.end()
                                   ? it->second
                                   : m_->TaskLane(slice.process,
                                                  m_->NameId("?", "tasks begun before the trace"),
                                                  /*begun_before_trace=*/true));
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
        if (thread.rows.size() <= slice.depth) {
          thread.rows.resize(slice.depth + 1);
          thread.compact_at.resize(slice.depth + 1, m_->compact_rows_from_);
        }
        std::vector<ReportRegion>& row = thread.rows[slice.depth];
        row.push_back({region.begin_ns, std::max(ns, region.begin_ns), region.name});
        if (row.size() >= thread.compact_at[slice.depth]) {
          CompactRow(p, &row);
          // Amortised: the next compaction when the row has doubled.
          thread.compact_at[slice.depth] = std::max(m_->compact_rows_from_, 2 * row.size());
        }
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
      case reader::SliceKind::kTask: {
        const OpenTask& task = m_->open_tasks_[slice.slot];
        ReportTaskLane& lane = p.task_lanes[task.lane];
        lane.spans.push_back({task.begin_ns, std::max(ns, task.begin_ns), lane.name});
        m_->task_lane_of_.erase({slice.process, slice.id});
        return;
      }
      case reader::SliceKind::kTaskSegment: {
        const OpenTask& segment = m_->open_tasks_[slice.slot];
        ReportTaskLane& lane = p.task_lanes[segment.lane];
        ++lane.segments;
        lane.thread_segments[m_->thread_ids_[slice.thread]].push_back(
            {segment.begin_ns, std::max(ns, segment.begin_ns), lane.name});
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
      case EventKind::kGauge: {
        if (at.gauge == reader::kNoIndex) break;
        std::vector<uint32_t>& index = m_->gauge_index_;
        if (index.size() <= at.gauge) index.resize(at.gauge + 1, reader::kNoIndex);
        if (index[at.gauge] == reader::kNoIndex) {
          index[at.gauge] = static_cast<uint32_t>(p.gauges.size());
          ReportGauge& gauge = p.gauges.emplace_back();
          gauge.name = absl::StrCat(e.category, "/", e.label);
          gauge.unit = std::string(e.unit.value_or(""));
        }
        p.gauges[index[at.gauge]].samples.push_back({ns, e.value_int});
        break;
      }
      default:
        break;
    }
  }

  // Records the begin of the task or segment in `slot`, of lane `lane`.
  void OpenTaskAt(uint32_t slot, uint32_t lane) {
    if (m_->open_tasks_.size() <= slot) m_->open_tasks_.resize(slot + 1);
    m_->open_tasks_[slot] = {m_->now_ns_, lane};
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
