#include "reader/targets/perfetto/perfetto_target.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/sid_parts.h"
#include "reader/targets/json_check.h"
#include "reader/targets/perfetto/perfetto_formatter.h"
#include "reader/targets/perfetto/perfetto_trace.pb.h"
#include "reader/targets/perfetto/track_event_encoder.h"
#include "reader/targets/process_ids.h"
#include "reader/targets/valid_utf8.h"
#include "reader/targets/viewer_args.h"
#include "reader/track_model.h"

// Its switches over event kinds name every kind: a new one fails the build until it is
// placed (docs/architecture.md).
#pragma GCC diagnostic error "-Wswitch"

namespace tracewire::targets {
namespace perfetto_export {

namespace {

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

std::optional<std::string> CopyOptional(const std::optional<absl::string_view>& value) {
  if (!value.has_value()) return std::nullopt;
  return std::string(*value);
}

}  // namespace

uint64_t PerfettoFormatter::AnnotationIid(Arg arg) {
  uint64_t& iid = sequence_->arg_iids[static_cast<size_t>(arg)];
  if (ABSL_PREDICT_FALSE(iid == 0)) {
    iid = ++sequence_->annotation_names;
    if (writing()) encoder_.InternAnnotationName(iid, ArgNameText(arg));
  }
  return iid;
}

// The annotation helpers intern the annotation's name even when skipping.
void PerfettoFormatter::StrArg(Arg name, absl::string_view value) {
  const uint64_t iid = AnnotationIid(name);
  if (writing()) encoder_.StringArg(iid, ValidUtf8(value, &scratch_));
}

void PerfettoFormatter::IntArg(Arg name, int64_t value) {
  const uint64_t iid = AnnotationIid(name);
  if (writing()) encoder_.IntArg(iid, value);
}

void PerfettoFormatter::UintArg(Arg name, uint64_t value) {
  const uint64_t iid = AnnotationIid(name);
  if (writing()) encoder_.UintArg(iid, value);
}

void PerfettoFormatter::BoolArg(Arg name, bool value) {
  const uint64_t iid = AnnotationIid(name);
  if (writing()) encoder_.BoolArg(iid, value);
}

void PerfettoFormatter::TaskArgs(uint64_t task, uint64_t parent) {
  UintArg(Arg::kTask, task);
  if (parent != 0) UintArg(Arg::kParent, parent);
}

void PerfettoFormatter::JsonArg(Arg name, absl::string_view json) {
  const uint64_t iid = AnnotationIid(name);
  if (writing()) encoder_.JsonArg(iid, json);
}

template <typename List>
void PerfettoFormatter::ListArg(Arg name, const List& list) {
  const uint64_t iid = AnnotationIid(name);
  if (!writing()) return;
  encoder_.BeginArray(iid);
  for (const auto& item : list) encoder_.ArrayItem(ValidUtf8(item, &scratch_));
  encoder_.EndArray();
}

void PerfettoFormatter::OnProcessBegin(const reader::ProcessTrack& process, const Event& first) {
  Process& p = processes_.emplace_back();
  p.sid = process.sid;
  p.pid = static_cast<int32_t>(pids_.Assign(process.sid));
  p.uuid = next_uuid_++;
  if (const size_t slash = process.sid.rfind('/'); slash != std::string::npos) {
    if (std::optional<uint32_t> parent = model_.FindProcess(process.sid.substr(0, slash))) {
      p.ppid = processes_[*parent].pid;
    }
  }
  // Described on its first thread's sequence (OnSliceBegin of that thread's lifetime).
}

void PerfettoFormatter::OnSliceBegin(const reader::Slice& slice, const Event& e) {
  switch (slice.kind) {
    case reader::SliceKind::kThread: {
      Process& p = processes_[slice.process];
      if (threads_.size() <= slice.thread) threads_.resize(slice.thread + 1);
      Thread& t = threads_[slice.thread];
      t.process = slice.process;
      t.track.uuid = next_uuid_++;
      // The kernel's thread id where the trace records it; else the main thread's is the
      // pid and the others get synthetic ones.
      t.tid = e.thread_tid != 0  ? static_cast<int32_t>(e.thread_tid)
              : e.thread_id == 0 ? p.pid
                                 : next_synthetic_tid_++;
      t.name = std::string(ValidUtf8(e.thread_name, &scratch_));
      t.sequence.id = slice.thread + 1;
      const int64_t ns = std::max<int64_t>(now_ns_, 0);
      if (!p.described) DescribeProcess(p, t);
      DescribeThread(t, p, ns);
      return;
    }
    case reader::SliceKind::kRegion: {
      Thread& t = threads_[slice.thread];
      StartEvent(t, Tick(t.track, now_ns_), pb::TrackEvent::TYPE_SLICE_BEGIN);
      SetNameAndCategory(e.label.empty() ? absl::string_view("region") : e.label, e.category);
      if (regions_.size() <= slice.slot) regions_.resize(slice.slot + 1);
      RegionSlice& region = regions_[slice.slot];
      region.msg.reset();
      if (e.msg.has_value()) {
        StrArg(Arg::kMsg, *e.msg);
        region.msg = std::string(*e.msg);
      }
      if (e.repo.has_value()) IntArg(Arg::kRepo, *e.repo);
      EndEvent();
      return;
    }
    case reader::SliceKind::kChild: {
      Process& p = processes_[slice.process];
      Track& lane = LaneTrack(p, slice.depth, threads_[slice.thread], now_ns_);
      if (children_.size() <= slice.slot) children_.resize(slice.slot + 1);
      ChildSlice& child = children_[slice.slot];
      child.begin_ns = Tick(lane, now_ns_);
      child.thread = slice.thread;
      child.name = absl::StrCat(
          "child ", e.is_git_command
                        ? absl::string_view("git")
                        : (e.argv.empty() ? absl::string_view("?") : Basename(e.argv.front())));
      child.child_class = std::string(e.child_class);
      child.hook = CopyOptional(e.hook_name);
      child.cd = CopyOptional(e.cd);
      child.use_shell = e.use_shell;
      child.argv.clear();
      if (e.is_git_command) child.argv.emplace_back("git");
      for (absl::string_view arg : e.argv) child.argv.emplace_back(arg);
      return;
    }
    case reader::SliceKind::kExec:
      return;  // execs are instants
    case reader::SliceKind::kTask:
      BeginTask(slice, e);
      return;
    case reader::SliceKind::kTaskSegment:
      BeginSegment(slice);
      return;
  }
}

void PerfettoFormatter::OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end) {
  const Event* leave = end.cause == reader::SliceEnd::kEndEvent ? end.event : nullptr;
  switch (slice.kind) {
    case reader::SliceKind::kRegion: {
      Thread& t = threads_[slice.thread];
      StartEvent(t, Tick(t.track, now_ns_), pb::TrackEvent::TYPE_SLICE_END);
      const RegionSlice& region = regions_[slice.slot];
      if (leave != nullptr && leave->msg.has_value() &&
          (!region.msg.has_value() || *region.msg != *leave->msg)) {
        StrArg(Arg::kLeaveMsg, *leave->msg);
      }
      EndEvent();
      return;
    }
    case reader::SliceKind::kChild:
      EndChild(processes_[slice.process], slice, now_ns_, leave);
      return;
    case reader::SliceKind::kThread:
    case reader::SliceKind::kExec:
      return;
    case reader::SliceKind::kTask:
      EndTask(slice);
      return;
    case reader::SliceKind::kTaskSegment:
      EndSegment(slice);
      return;
  }
}

void PerfettoFormatter::EndChild(Process& p, const reader::Slice& slice, int64_t ns,
                                 const Event* e) {
  const ChildSlice& child = children_[slice.slot];
  Track& lane = p.lanes[slice.depth];
  const int64_t end = Tick(lane, ns);
  Thread& on = threads_[child.thread];
  StartAbsoluteEvent(on, child.begin_ns, pb::TrackEvent::TYPE_SLICE_BEGIN, lane.uuid);
  SetNameAndCategory(child.name, "process");
  UintArg(Arg::kChildId, slice.id);
  StrArg(Arg::kClass, child.child_class);
  if (child.hook.has_value()) StrArg(Arg::kHook, *child.hook);
  if (child.cd.has_value()) StrArg(Arg::kCd, *child.cd);
  BoolArg(Arg::kUseShell, child.use_shell);
  ListArg(Arg::kArgv, child.argv);
  if (e != nullptr) {
    IntArg(Arg::kPid, e->pid);
    if (e->kind == EventKind::kChildExit) {
      IntArg(Arg::kCode, e->code);
    } else {
      StrArg(Arg::kReady, e->ready);
    }
  }
  // A flow needs both ends: the child process's first event has been seen (it comes
  // before the child's exit unless the clocks disagree) and not yet joined.
  Flow* flow = slice.link == reader::kNoIndex ? nullptr : &FlowFor(slice.link);
  const bool joins = flow != nullptr && !flow->finished && flow->child_start.has_value();
  if (joins) FlowId(slice.link);
  EndEvent();
  StartAbsoluteEvent(on, end, pb::TrackEvent::TYPE_SLICE_END, lane.uuid);
  EndEvent();
  if (joins) {
    flow->finished = true;
    const auto [thread, at] = *flow->child_start;
    WriteFlowEnd(slice.link, thread, at);
  }
}

void PerfettoFormatter::ChildProcessStarted(uint32_t link, uint32_t thread, int64_t ns) {
  Flow& flow = FlowFor(link);
  if (!flow.child_start.has_value()) flow.child_start = std::make_pair(thread, ns);
}

void PerfettoFormatter::WriteFlowEnd(uint32_t link, uint32_t thread, int64_t ns) {
  StartAbsoluteEvent(threads_[thread], ns, pb::TrackEvent::TYPE_INSTANT,
                     threads_[thread].track.uuid);
  SetNameAndCategory("spawned", "process");
  TerminatingFlowId(link);
  EndEvent();
}

void PerfettoFormatter::Counter(const Event& e, Process& p, Thread& t, int64_t ns) {
  std::string name = absl::StrCat(e.category, "/", e.label);
  if (e.kind == EventKind::kThTimer || e.kind == EventKind::kThCounter) {
    absl::StrAppend(&name, " (", e.thread_name, ")");
  }
  const int64_t ts = Tick(t.track, ns);
  const auto value = [&](const std::string& track_name, pb::CounterDescriptor::Unit unit,
                         int64_t v) {
    const uint64_t uuid = CounterTrack(p, t, track_name, unit, ts);
    StartEvent(t, ts, pb::TrackEvent::TYPE_COUNTER, uuid);
    CounterValue(v);
    EndEvent();
  };
  if (e.kind == EventKind::kTimer || e.kind == EventKind::kThTimer) {
    // Seconds to nanoseconds; non-finite values (only a hostile trace has them) count 0.
    const auto ns_of = [](double seconds) -> int64_t {
      const double v = seconds * 1e9;
      return std::isfinite(v) && std::fabs(v) < 9e18 ? static_cast<int64_t>(std::llround(v)) : 0;
    };
    value(absl::StrCat(name, " intervals"), pb::CounterDescriptor::UNIT_COUNT,
          static_cast<int64_t>(std::min<uint64_t>(e.intervals, INT64_MAX)));
    value(absl::StrCat(name, " t_total"), pb::CounterDescriptor::UNIT_TIME_NS, ns_of(e.t_total));
    value(absl::StrCat(name, " t_min"), pb::CounterDescriptor::UNIT_TIME_NS, ns_of(e.t_min));
    value(absl::StrCat(name, " t_max"), pb::CounterDescriptor::UNIT_TIME_NS, ns_of(e.t_max));
  } else {
    value(name, pb::CounterDescriptor::UNIT_COUNT,
          static_cast<int64_t>(std::min<uint64_t>(e.count, INT64_MAX)));
  }
}

void PerfettoFormatter::Instant(const Event& e, Process& p, Thread& t, int64_t ns) {
  const InstantStyle style = InstantStyleOf(e);
  // The thread's track (the sequence's default) or the process's.
  const uint64_t track = style.process_scope ? p.uuid : 0;
  StartEvent(t, Tick(t.track, ns), pb::TrackEvent::TYPE_INSTANT, track);
  SetNameAndCategory(style.name, style.category);
  ArgsWriter writer{*this};
  VisitViewerArgs(e, writer);
  EndEvent();
}

void PerfettoFormatter::OnEvent(const Event& e, const reader::EventTracks& at) {
  Process& p = processes_[at.process];
  Thread& t = threads_[at.thread];
  at_ = at;
  p.last_ns = std::max(p.last_ns, now_ns_);
  switch (e.kind) {
    case EventKind::kRegionEnter:
    case EventKind::kRegionLeave:
    case EventKind::kChildStart:
    case EventKind::kTaskBegin:
    case EventKind::kTaskEnd:
    case EventKind::kTaskAdopt:
    case EventKind::kTaskRelease:
      return;  // slices
    case EventKind::kCpuSample:
      return;  // PerfSample packets (OnSample)
    case EventKind::kGauge:
      if (at.gauge != reader::kNoIndex) GaugeSample(e, p, t, now_ns_, at.gauge);
      return;
    case EventKind::kChildExit:
    case EventKind::kChildReady:
      if (at.slice_ended) return;
      break;  // its child_start came before the output started: an instant
    case EventKind::kTimer:
    case EventKind::kThTimer:
    case EventKind::kCounter:
    case EventKind::kThCounter:
      Counter(e, p, t, now_ns_);
      return;
    case EventKind::kStart:
      if (!e.argv.empty()) {
        p.argv.clear();
        for (absl::string_view arg : e.argv) {
          p.argv.emplace_back(ValidUtf8(arg, &scratch_));
        }
        WriteProcessTree(p, t);  // a later start (an exec) renames the process
      }
      break;
    case EventKind::kVersion:
    case EventKind::kTooManyFiles:
    case EventKind::kExit:
    case EventKind::kSignal:
    case EventKind::kAtexit:
    case EventKind::kError:
    case EventKind::kCmdPath:
    case EventKind::kCmdAncestry:
    case EventKind::kCmdName:
    case EventKind::kCmdMode:
    case EventKind::kAlias:
    case EventKind::kExec:
    case EventKind::kExecResult:
    case EventKind::kThreadStart:
    case EventKind::kThreadExit:
    case EventKind::kDefParam:
    case EventKind::kDefRepo:
    case EventKind::kData:
    case EventKind::kDataJson:
    case EventKind::kPrintf:
    case EventKind::kCpuSamplesLost:
    case EventKind::kExperimental:
      break;
  }
  Instant(e, p, t, now_ns_);
  if (at.parent_link != reader::kNoIndex) {
    ChildProcessStarted(at.parent_link, at.thread, t.track.last_ns);
  }
}

void PerfettoFormatter::Add(const Event& e, std::string* out) {
  out_ = out;
  now_ns_ = Ns(e.time);
  model_.Add(e, *this);
  if (e.kind == EventKind::kAtexit || e.kind == EventKind::kSignal) {
    // The process ends: its children tracks and the thread's regions end here.
    model_.EndChildren(at_.process, e.time, *this);
    model_.EndThreadRegions(at_.thread, e.time, *this);
  }
}

void PerfettoFormatter::Finish(std::string* out) {
  out_ = out;
  for (uint32_t index = 0; index < processes_.size(); ++index) {
    now_ns_ = std::max<int64_t>(processes_[index].last_ns, 0);
    const absl::Time last = model_.process(index).last_time;
    model_.EndChildren(index, last, *this, reader::SliceEnd::kFinish);
    model_.EndProcess(index, last, *this, reader::SliceEnd::kFinish);
  }
  model_ = reader::TrackModel();
  processes_.clear();
  threads_.clear();
  regions_.clear();
  children_.clear();
  flows_.clear();
  pids_.Clear();
  counter_tracks_.clear();
  gauge_tracks_.clear();
  tasks_.clear();
  segments_.clear();
  task_slices_.clear();
  next_segment_serial_ = 1;
  next_task_flow_ = kTaskFlowBase;
  next_synthetic_tid_ = kSyntheticTidBase;
  next_uuid_ = 1;
}

}  // namespace perfetto_export

std::unique_ptr<Formatter> MakePerfettoFormatter(const FormatterOptions& options) {
  return std::make_unique<perfetto_export::PerfettoFormatter>();
}

}  // namespace tracewire::targets
