#include "reader/event_window.h"

#include <fnmatch.h>

#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "format/event_spec.h"
#include "reader/sid_parts.h"

namespace tracewire::reader {

absl::StatusOr<WindowTime> ParseWindowTime(absl::string_view text) {
  WindowTime t;
  double seconds;
  if (absl::SimpleAtod(text, &seconds) && seconds >= 0 && seconds < 1e12) {
    t.offset = absl::Seconds(seconds);
    return t;
  }
  if (absl::ParseDuration(text, &t.offset)) {
    if (t.offset < absl::ZeroDuration() || t.offset == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(absl::StrCat("'", text, "' is not a positive duration"));
    }
    return t;
  }
  absl::Time absolute;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &absolute, &error)) {
    t.absolute = absolute;
    return t;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "'", text, "' is neither a duration from the trace's start (2.5s, 250ms, 1m30s) nor a UTC ",
      "time (2026-11-22T02:00:00.25Z)"));
}

bool EventWindow::KeepsProcess(absl::string_view sid) const {
  if (options_.sid_pattern.empty() && !options_.pid.has_value()) return true;
  for (absl::string_view component : absl::StrSplit(sid, '/')) {
    if (!options_.sid_pattern.empty()) {
      const std::string c(component);
      if (fnmatch(options_.sid_pattern.c_str(), c.c_str(), 0) == 0) return true;
    }
    if (options_.pid.has_value()) {
      const std::optional<uint32_t> pid = PidFromSidComponent(component);
      if (pid.has_value() && static_cast<int64_t>(*pid) == *options_.pid) return true;
    }
  }
  return false;
}

void EventWindow::OnSliceBegin(const Slice& slice, const Event& e) {
  if (slice.kind != SliceKind::kRegion && slice.kind != SliceKind::kTask &&
      slice.kind != SliceKind::kTaskSegment) {
    return;
  }
  if (slices_.size() <= slice.slot) slices_.resize(slice.slot + 1);
  OpenSlice& r = slices_[slice.slot];
  r.sid.assign(e.sid.data(), e.sid.size());
  r.thread_name.assign(e.thread_name.data(), e.thread_name.size());
  r.category.assign(e.category.data(), e.category.size());
  r.label.assign(e.label.data(), e.label.size());
  r.file.assign(e.file.data(), e.file.size());
  if (e.msg.has_value()) {
    r.msg = std::string(*e.msg);
  } else {
    r.msg.reset();
  }
  r.line = e.line;
  r.repo = e.repo;
  r.thread_id = e.thread_id;
  r.thread_tid = e.thread_tid;
  r.gen = e.gen;
  r.depth = e.depth;
  r.nesting = e.nesting;
  r.utc_offset_sec = e.utc_offset_sec;
  r.t_abs = e.t_abs;
  r.time = e.time;
  r.task_id = e.task_id;
  r.parent_task = e.parent_task;
  r.adopted_task = e.adopted_task;
}

void EventWindow::NoteIdentity(const Event& e) {
  if (e.kind != EventKind::kVersion && e.kind != EventKind::kStart &&
      e.kind != EventKind::kCmdName) {
    return;
  }
  auto [it, inserted] = identity_index_.try_emplace(std::string(e.sid), identities_.size());
  if (inserted) identities_.emplace_back();
  ProcessIdentity& p = identities_[it->second];
  p.sid.assign(e.sid.data(), e.sid.size());
  p.thread_name.assign(e.thread_name.data(), e.thread_name.size());
  p.thread_id = e.thread_id;
  p.thread_tid = e.thread_tid;
  p.gen = e.gen;
  p.depth = e.depth;
  p.utc_offset_sec = e.utc_offset_sec;
  switch (e.kind) {
    case EventKind::kVersion:
      p.exe = std::string(e.exe);
      break;
    case EventKind::kStart:
      p.argv.emplace(e.argv.begin(), e.argv.end());
      break;
    default:
      p.cmd_name = std::string(e.cmd_name);
      if (e.cmd_hierarchy.has_value()) {
        p.cmd_hierarchy = std::string(*e.cmd_hierarchy);
      } else {
        p.cmd_hierarchy.reset();
      }
      break;
  }
}

void EventWindow::EmitIdentity(const ProcessIdentity& p, absl::Time time,
                               absl::FunctionRef<void(const Event&)> emit) {
  Event& e = synthetic_;
  const auto common = [&](EventKind kind, format::EventType type) {
    e = Event();
    e.kind = kind;
    e.wire_type = static_cast<uint8_t>(type);
    e.gen = p.gen;
    e.thread_id = p.thread_id;
    e.thread_tid = p.thread_tid;
    e.sid = p.sid;
    e.depth = p.depth;
    e.thread_name = p.thread_name;
    e.time = time;
    e.utc_offset_sec = p.utc_offset_sec;
  };
  if (p.exe.has_value()) {
    common(EventKind::kVersion, format::EventType::kVersion);
    e.exe = *p.exe;
    emit(e);
  }
  if (p.argv.has_value()) {
    common(EventKind::kStart, format::EventType::kStart);
    e.argv.assign(p.argv->begin(), p.argv->end());
    emit(e);
  }
  if (p.cmd_name.has_value()) {
    common(EventKind::kCmdName, format::EventType::kCmdName);
    e.cmd_name = *p.cmd_name;
    if (p.cmd_hierarchy.has_value()) e.cmd_hierarchy = *p.cmd_hierarchy;
    emit(e);
  }
}

void EventWindow::EmitSlice(const OpenSlice& slice, EventKind kind, absl::Time time,
                            absl::FunctionRef<void(const Event&)> emit) {
  Event& e = synthetic_;
  e = Event();
  e.kind = kind;
  // The wire row the kind is written as (each of these kinds has one, named after it).
  e.wire_type = static_cast<uint8_t>(format::LookupTrace2Event(EventKindName(kind))->type);
  e.task_id = slice.task_id;
  e.parent_task = slice.parent_task;
  // The task the thread works for at the event (Event::adopted_task).
  e.adopted_task = kind == EventKind::kTaskAdopt     ? slice.task_id
                   : kind == EventKind::kTaskRelease ? 0
                                                     : slice.adopted_task;
  e.gen = slice.gen;
  e.thread_id = slice.thread_id;
  e.thread_tid = slice.thread_tid;
  e.sid = slice.sid;
  e.depth = slice.depth;
  e.thread_name = slice.thread_name;
  e.time = time;
  e.utc_offset_sec = slice.utc_offset_sec;
  e.file = slice.file;
  e.line = slice.line;
  e.repo = slice.repo;
  e.t_abs = slice.t_abs + absl::ToDoubleSeconds(time - slice.time);
  if (kind == EventKind::kRegionLeave) e.t_rel = absl::ToDoubleSeconds(time - slice.time);
  e.nesting = slice.nesting;
  e.category = slice.category;
  e.label = slice.label;
  if (slice.msg.has_value()) e.msg = *slice.msg;
  emit(e);
}

std::vector<uint32_t> EventWindow::OpenTasksInBeginOrder() const {
  std::vector<uint32_t> slots;
  for (const ProcessTrack& process : model_.processes()) {
    for (const Slice& task : process.task_lanes) {
      if (task.slot != kNoIndex) slots.push_back(task.slot);
    }
  }
  std::stable_sort(slots.begin(), slots.end(),
                   [&](uint32_t a, uint32_t b) { return slices_[a].time < slices_[b].time; });
  return slots;
}

bool EventWindow::Add(const Event& e, absl::FunctionRef<void(const Event&)> emit) {
  if (past_end_) return false;
  if (!KeepsProcess(e.sid)) return true;
  if (!started_) {
    started_ = true;
    const auto resolve = [&](const std::optional<WindowTime>& t, absl::Time fallback) {
      if (!t.has_value()) return fallback;
      return t->absolute.has_value() ? *t->absolute : e.time + t->offset;
    };
    since_ = resolve(options_.since, absl::InfinitePast());
    until_ = resolve(options_.until, absl::InfiniteFuture());
  }
  if (e.time > until_) {
    // A window without events of its own still shows what spans it.
    if (!inside_ && since_ <= until_) EnterWindow(emit);
    // The edge: close what is open, innermost first, thread by thread (regions, then the
    // thread's task segment); then the tasks, the latest begun first.
    if (inside_) {
      for (uint32_t t = 0; t < model_.threads().size(); ++t) {
        absl::Span<const Slice> open = model_.OpenRegions(t);
        for (auto it = open.rbegin(); it != open.rend(); ++it) {
          EmitSlice(slices_[it->slot], EventKind::kRegionLeave, until_, emit);
        }
        const Slice& segment = model_.thread(t).segment;
        if (segment.slot != kNoIndex) {
          EmitSlice(slices_[segment.slot], EventKind::kTaskRelease, until_, emit);
        }
      }
      const std::vector<uint32_t> tasks = OpenTasksInBeginOrder();
      for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) {
        EmitSlice(slices_[*it], EventKind::kTaskEnd, until_, emit);
      }
    }
    past_end_ = true;
    return false;
  }
  if (!inside_ && e.time < since_) NoteIdentity(e);
  if (!inside_ && e.time >= since_) EnterWindow(emit);
  model_.Add(e, *this);
  if (inside_) emit(e);
  return true;
}

void EventWindow::EnterWindow(absl::FunctionRef<void(const Event&)> emit) {
  inside_ = true;
  // The edge: state the processes again, then open again what is open, outermost first:
  // the tasks, in the order they began (a parent before its children); then per thread its
  // task segment and its regions.
  for (const ProcessIdentity& p : identities_) EmitIdentity(p, since_, emit);
  for (const uint32_t slot : OpenTasksInBeginOrder()) {
    EmitSlice(slices_[slot], EventKind::kTaskBegin, since_, emit);
  }
  for (uint32_t t = 0; t < model_.threads().size(); ++t) {
    const Slice& segment = model_.thread(t).segment;
    if (segment.slot != kNoIndex) {
      EmitSlice(slices_[segment.slot], EventKind::kTaskAdopt, since_, emit);
    }
    for (const Slice& open : model_.OpenRegions(t)) {
      EmitSlice(slices_[open.slot], EventKind::kRegionEnter, since_, emit);
    }
  }
}

}  // namespace tracewire::reader
