// The Chrome formatter's tasks: async slices, the segments of threads working for them, and
// the flows joining a task's segments (chrome_formatter.h). Included by chrome_target.cc
// only: the formatter is one translation unit, so its helpers keep internal linkage.
#ifndef TRACEWIRE_READER_TARGETS_CHROME_TASKS_INL_H_
#define TRACEWIRE_READER_TARGETS_CHROME_TASKS_INL_H_
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reader/event.h"
#include "reader/targets/chrome_formatter.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/valid_utf8.h"
#include "reader/track_model.h"

namespace tracewire::targets::chrome_internal {
namespace {

Flow& ChromeFormatter::FlowFor(uint32_t link) {
  if (flows_.size() < link) flows_.resize(link);
  return flows_[link - 1];
}

void ChromeFormatter::FlowEvent(const char* ph, int64_t id, int64_t pid, int64_t tid, int64_t ts,
                                std::string* out) {
  if (!StartObject(out)) return;
  JsonWriter jw(out);
  Begin(jw, ph, "child process", "process", pid, tid, ts);
  jw.ObjectInt("id", id);
  if (ph[0] == 'f') jw.ObjectString("bp", "e");
  jw.End();
}

void ChromeFormatter::EndFlow(uint32_t link, const FlowEnd& end, std::string* out) {
  Flow& flow = FlowFor(link);
  if (flow.finished) return;
  if (!flow.started) {
    flow.pending_end = end;
    return;
  }
  flow.finished = true;
  flow.pending_end.reset();
  FlowEvent("f", link, end.pid, end.tid, end.ts, out);
}

void ChromeFormatter::AsyncEvent(const char* ph, const TaskInfo& task, uint64_t id, int64_t tid,
                                 int64_t ts, std::string* out) {
  if (!StartObject(out)) return;
  JsonWriter jw(out);
  Begin(jw, ph, task.name, task.category, task.pid, tid, ts);
  // Task IDs are unique in their process: process-local async IDs.
  jw.ObjectBeginObject("id2");
  jw.ObjectString("local", absl::StrCat("0x", absl::Hex(id)));
  jw.End();
  if (ph[0] == 'b') {
    jw.ObjectBeginObject("args");
    jw.ObjectRawJson("task", absl::StrCat(id), false);
    if (task.parent != 0) jw.ObjectRawJson("parent", absl::StrCat(task.parent), false);
    jw.End();
  }
  jw.End();
}

void ChromeFormatter::BeginTask(const reader::Slice& slice, const Event& e, std::string* out) {
  TaskInfo& task = tasks_[{slice.process, slice.id}];
  task = TaskInfo{};
  task.name =
      std::string(ValidUtf8(e.label.empty() ? absl::string_view("task") : e.label, &scratch_));
  task.category = std::string(ValidUtf8(e.category.empty() ? "task" : e.category, &scratch_));
  task.parent = slice.task;
  task.pid = processes_[slice.process].pid;
  // Ticked on the thread's track like its other events, so that no two events of the
  // track share a ts (the flow events bind to the segments' by ts, pid, tid and cat).
  Track& t = threads_[slice.thread];
  AsyncEvent("b", task, slice.id, t.tid, Tick(t, now_ns_), out);
}

void ChromeFormatter::EndTask(const reader::Slice& slice, std::string* out) {
  auto it = tasks_.find({slice.process, slice.id});
  if (it == tasks_.end()) return;
  TaskInfo& task = it->second;
  Track& t = threads_[slice.thread];
  AsyncEvent("e", task, slice.id, t.tid, Tick(t, now_ns_), out);
  // The flow through the threads that worked for it: "s" at its first segment, a "t" at
  // each later one, "f" at the last (in time order, as the DevTools engine reads them).
  if (task.stops.size() >= 2) {
    const int64_t id = next_task_flow_++;
    for (size_t i = 0; i < task.stops.size(); ++i) {
      const FlowStop& stop = task.stops[i];
      if (!StartObject(out)) continue;
      const char* ph = i == 0 ? "s" : i + 1 == task.stops.size() ? "f" : "t";
      JsonWriter jw(out);
      Begin(jw, ph, "task", task.category, stop.pid, stop.tid, stop.ts);
      jw.ObjectInt("id", id);
      if (ph[0] != 's') jw.ObjectString("bp", "e");
      jw.End();
    }
  }
  // Forgotten (memory stays bounded by the open tasks): a segment that begins later is
  // drawn as "task <id>", with no flow.
  tasks_.erase(it);
}

void ChromeFormatter::BeginSegment(const reader::Slice& slice, std::string* out) {
  if (segments_.size() <= slice.slot) segments_.resize(slice.slot + 1);
  SegmentSlice& segment = segments_[slice.slot];
  Track& t = threads_[slice.thread];
  segment.begin_ns = Tick(t, now_ns_);
  segment.task = slice.id;
  auto it = tasks_.find({slice.process, slice.id});
  if (it != tasks_.end()) {
    segment.name = it->second.name;
    segment.category = it->second.category;
    it->second.stops.push_back(FlowStop{processes_[slice.process].pid, t.tid, segment.begin_ns});
  } else {
    // Its task began before the output started, or has ended.
    segment.name = absl::StrCat("task ", slice.id);
    segment.category = "task";
  }
}

void ChromeFormatter::EndSegment(const reader::Slice& slice, std::string* out) {
  const SegmentSlice& segment = segments_[slice.slot];
  Track& t = threads_[slice.thread];
  const int64_t end = Tick(t, now_ns_);
  if (!StartObject(out)) return;
  JsonWriter jw(out);
  Begin(jw, "X", segment.name, segment.category, processes_[slice.process].pid, t.tid,
        segment.begin_ns);
  RawMicros(jw, "dur", end - segment.begin_ns);
  jw.ObjectBeginObject("args");
  jw.ObjectRawJson("task", absl::StrCat(segment.task), false);
  jw.End();
  jw.End();
}

}  // namespace
}  // namespace tracewire::targets::chrome_internal

#endif  // TRACEWIRE_READER_TARGETS_CHROME_TASKS_INL_H_
