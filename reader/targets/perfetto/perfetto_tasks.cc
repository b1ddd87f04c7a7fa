#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "reader/targets/perfetto/perfetto_formatter.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::perfetto_export {

void PerfettoFormatter::BeginTask(const reader::Slice& slice, const Event& e) {
  Process& p = processes_[slice.process];
  Thread& t = threads_[slice.thread];
  const std::pair<uint32_t, uint64_t> key{slice.process, slice.id};
  if (auto old = tasks_.find(key); old != tasks_.end()) {
    // The ID begins again while a stop of its previous run is open: that stop ends the
    // previous run's flow when it ends.
    TaskState& previous = old->second;
    if (previous.latest_open && previous.latest_slot < segments_.size()) {
      SegmentSlice& latest = segments_[previous.latest_slot];
      latest.orphan_flow = previous.stops >= 2 ? previous.flow : 0;
      latest.stop = false;
    } else if (previous.held.has_value()) {
      WriteSegment(*previous.held, previous.name, previous.category, slice.id,
                   previous.stops >= 2 ? FlowRole::kEnd : FlowRole::kNone, previous.flow);
    }
    tasks_.erase(old);
  }
  TaskState& task = tasks_[key];
  task.name =
      std::string(ValidUtf8(e.label.empty() ? absl::string_view("task") : e.label, &scratch_));
  task.category = std::string(ValidUtf8(e.category.empty() ? "task" : e.category, &scratch_));
  task.flow = next_task_flow_++;
  // Ticked on the thread's track, as the Chrome export does (the same times).
  const int64_t ts = Tick(t.track, now_ns_);
  if (task_slices_.size() <= slice.slot) task_slices_.resize(slice.slot + 1);
  TaskSlice& open = task_slices_[slice.slot];
  open.name = task.name;
  open.lane = TakeTaskLane(p, task.name, t, ts);
  Track& lane = p.task_lanes[task.name].tracks[open.lane];
  lane.last_ns = ts;
  StartEvent(t, ts, pb::TrackEvent::TYPE_SLICE_BEGIN, lane.uuid);
  SetNameAndCategory(task.name, task.category);
  TaskArgs(slice.id, slice.task);
  EndEvent();
}

void PerfettoFormatter::EndTask(const reader::Slice& slice) {
  Process& p = processes_[slice.process];
  Thread& t = threads_[slice.thread];
  const int64_t ts = Tick(t.track, now_ns_);
  const TaskSlice& open = task_slices_[slice.slot];
  TaskLanes& lanes = p.task_lanes[open.name];
  lanes.free.push(open.lane);
  Track& lane = lanes.tracks[open.lane];
  lane.last_ns = std::max(lane.last_ns, ts);
  StartEvent(t, ts, pb::TrackEvent::TYPE_SLICE_END, lane.uuid);
  EndEvent();
  auto it = tasks_.find({slice.process, slice.id});
  if (it == tasks_.end()) return;
  TaskState& task = it->second;
  task.ended = true;
  if (task.held.has_value()) {  // its latest stop has ended: the last one
    WriteSegment(*task.held, task.name, task.category, slice.id,
                 task.stops >= 2 ? FlowRole::kEnd : FlowRole::kNone, task.flow);
    task.held.reset();
  }
  if (task.open_stops == 0) tasks_.erase(it);
}

void PerfettoFormatter::BeginSegment(const reader::Slice& slice) {
  if (segments_.size() <= slice.slot) segments_.resize(slice.slot + 1);
  SegmentSlice& segment = segments_[slice.slot];
  Thread& t = threads_[slice.thread];
  segment = SegmentSlice{};
  segment.begin_ns = Tick(t.track, now_ns_);
  segment.task = slice.id;
  segment.serial = next_segment_serial_++;
  auto it = tasks_.find({slice.process, slice.id});
  if (it == tasks_.end() || it->second.ended) {
    // Its task began before the output started, or has ended.
    segment.name = absl::StrCat("task ", slice.id);
    segment.category = "task";
    return;
  }
  TaskState& task = it->second;
  segment.name = task.name;
  segment.category = task.category;
  segment.stop = true;
  segment.flow = task.flow;
  ++task.stops;
  ++task.open_stops;
  if (task.held.has_value()) {  // no longer the latest stop: a step of the flow
    WriteSegment(*task.held, task.name, task.category, slice.id, FlowRole::kStep, task.flow);
    task.held.reset();
  }
  task.latest_serial = segment.serial;
  task.latest_slot = slice.slot;
  task.latest_open = true;
}

void PerfettoFormatter::EndSegment(const reader::Slice& slice) {
  SegmentSlice& segment = segments_[slice.slot];
  Thread& t = threads_[slice.thread];
  const HeldSegment written{slice.thread, segment.begin_ns, Tick(t.track, now_ns_)};
  auto it = segment.stop ? tasks_.find({slice.process, segment.task}) : tasks_.end();
  if (it == tasks_.end() || it->second.flow != segment.flow) {
    // Not a stop, or a stop of a run of the task ID that a new run replaced: a step of the
    // old run's flow, or its end if it was that run's latest stop (orphan_flow).
    const FlowRole role = segment.orphan_flow != 0 ? FlowRole::kEnd
                          : segment.stop           ? FlowRole::kStep
                                                   : FlowRole::kNone;
    WriteSegment(written, segment.name, segment.category, segment.task, role,
                 segment.orphan_flow != 0 ? segment.orphan_flow : segment.flow);
    return;
  }
  TaskState& task = it->second;
  --task.open_stops;
  if (segment.serial != task.latest_serial) {
    WriteSegment(written, task.name, task.category, segment.task, FlowRole::kStep, task.flow);
  } else {
    task.latest_open = false;
    if (!task.ended) {
      task.held = written;  // a later stop or the task's end decides
      return;
    }
    WriteSegment(written, task.name, task.category, segment.task,
                 task.stops >= 2 ? FlowRole::kEnd : FlowRole::kNone, task.flow);
  }
  if (task.ended && task.open_stops == 0) tasks_.erase(it);
}

void PerfettoFormatter::WriteSegment(const HeldSegment& segment, absl::string_view name,
                                     absl::string_view category, uint64_t task, FlowRole role,
                                     uint64_t flow) {
  Thread& t = threads_[segment.thread];
  const uint64_t track = SegmentTrack(t, processes_[t.process], segment.begin_ns);
  // Written at its end (or later): absolute times, out of the sequence's time order.
  StartAbsoluteEvent(t, segment.begin_ns, pb::TrackEvent::TYPE_SLICE_BEGIN, track);
  SetNameAndCategory(name, category);
  TaskArgs(task, 0);
  if (role == FlowRole::kStep) FlowId(flow);
  if (role == FlowRole::kEnd) TerminatingFlowId(flow);
  EndEvent();
  StartAbsoluteEvent(t, segment.end_ns, pb::TrackEvent::TYPE_SLICE_END, track);
  EndEvent();
}

}  // namespace tracewire::targets::perfetto_export
