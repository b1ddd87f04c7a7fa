#include "reader/targets/chrome_target.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/sid_parts.h"
#include "reader/targets/chrome_formatter.h"
#include "reader/targets/chrome_profile-inl.h"
#include "reader/targets/chrome_tasks-inl.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/output_cursor.h"
#include "reader/targets/valid_utf8.h"
#include "reader/targets/viewer_args.h"
#include "reader/track_model.h"

// Its switches over event kinds name every kind: a new one fails the build until it is
// placed (docs/architecture.md).
#pragma GCC diagnostic error "-Wswitch"

namespace tracewire::targets::chrome_internal {
namespace {

void PutChromeMicros(int64_t ns, OutputCursor& cursor) {
  cursor.Reserve(24);  // '-', 17 integer digits at most, '.', 3 decimals
  char* p = cursor.pos();
  // The magnitude in unsigned arithmetic: negating INT64_MIN as int64_t would overflow.
  uint64_t magnitude = static_cast<uint64_t>(ns);
  if (ns < 0) {
    *p++ = '-';
    magnitude = 0 - magnitude;
  }
  const uint64_t micros = magnitude / 1000;
  const uint64_t fraction = magnitude - micros * 1000;
  cursor.Advance(p);
  cursor.PutUint(micros);
  cursor.Reserve(4);
  p = cursor.pos();
  p[0] = '.';
  p[1] = static_cast<char>('0' + fraction / 100);
  p[2] = static_cast<char>('0' + fraction / 10 % 10);
  p[3] = static_cast<char>('0' + fraction % 10);
  cursor.Advance(p + 4);
}

int64_t ChromeFormatter::RelativeNs(absl::Time t) {
  if (!have_base_) {
    have_base_ = true;
    base_ = absl::UnixEpoch();
    const absl::Duration since_epoch = t - absl::UnixEpoch();
    if (since_epoch >= absl::ZeroDuration() && since_epoch < kMaxBaseOffset) {
      base_ = absl::UnixEpoch() + absl::Floor(since_epoch, absl::Hours(1)) - absl::Hours(1);
    }
  }
  // ToInt64Nanoseconds saturates (also for infinite times).
  return std::clamp(absl::ToInt64Nanoseconds(t - base_), -kMaxOffsetNs, kMaxOffsetNs);
}

int64_t ChromeFormatter::Tick(Track& track, int64_t ns) {
  // last_ns never exceeds kMaxOffsetNs by more than the number of events: no overflow.
  if (track.last_ns != kNoTime && ns <= track.last_ns) ns = track.last_ns + 1;
  track.last_ns = ns;
  return ns;
}

int64_t ChromeFormatter::StackId(absl::Span<const reader::SymbolFrame> stack) {
  int64_t parent = kNoStack;
  std::string key;
  // Outermost frame first: each frame's parent is its caller.
  for (auto frame = stack.rbegin(); frame != stack.rend(); ++frame) {
    key.clear();
    absl::StrAppend(&key, parent, "|", frame->pc, "|", frame->line, "|", frame->func.size(), "|",
                    frame->func, frame->file);
    auto it = frame_ids_.find(key);
    if (it != frame_ids_.end()) {
      parent = it->second;
      continue;
    }
    if (frames_.size() >= kMaxStackFrames) return kNoStack;
    StackFrame f;
    f.name = frame->func.empty() ? absl::StrCat("0x", absl::Hex(frame->pc))
                                 : std::string(ValidUtf8(frame->func, &scratch_));
    if (!frame->file.empty()) {
      f.category = std::string(ValidUtf8(frame->file, &scratch_));
      if (frame->line != 0) absl::StrAppend(&f.category, ":", frame->line);
    }
    f.parent = parent;
    frames_.push_back(std::move(f));
    parent = static_cast<int64_t>(frames_.size());
    frame_ids_.emplace(key, parent);
  }
  return parent;
}

void ChromeFormatter::Str(JsonWriter& jw, JsonKey key, absl::string_view value) {
  jw.ObjectString(key, ValidUtf8(value, &scratch_));
}

void ChromeFormatter::StrList(JsonWriter& jw, JsonKey key,
                              const std::vector<absl::string_view>& list, absl::string_view first) {
  jw.ObjectBeginArray(key);
  if (!first.empty()) jw.ArrayString(first);
  for (absl::string_view item : list) jw.ArrayString(ValidUtf8(item, &scratch_));
  jw.End();
}

void ChromeFormatter::RawMicros(JsonWriter& jw, JsonKey key, int64_t ns) {
  PutChromeMicros(ns, jw.ObjectRawValue(key));
}

bool ChromeFormatter::StartObject(std::string* out) {
  const bool first = first_;
  first_ = false;
  if (out == nullptr) return false;
  out->append(first ? "{\"traceEvents\":[\n" : ",\n");
  return true;
}

void ChromeFormatter::Begin(JsonWriter& jw, const char* ph, absl::string_view name,
                            absl::string_view cat, int64_t pid, int64_t tid, int64_t ts) {
  jw.BeginObject();
  // Written straight through the cursor: these members start every event.
  OutputCursor& cursor = jw.ObjectRawMembers();
  cursor.PutLiteral("\"name\":");
  cursor.Put(strings_.Quoted(name));
  if (!cat.empty()) {
    cursor.PutLiteral(",\"cat\":");
    cursor.Put(strings_.Quoted(cat));
  }
  cursor.PutLiteral(",\"ph\":");
  PutJsonString(ph, cursor);
  cursor.PutLiteral(",\"ts\":");
  PutChromeMicros(ts, cursor);
  cursor.PutLiteral(",\"pid\":");
  cursor.PutInt(pid);
  cursor.PutLiteral(",\"tid\":");
  cursor.PutInt(tid);
}

void ChromeFormatter::Metadata(const char* what, const Process& p, int64_t tid, const char* key,
                               absl::string_view text, std::optional<int64_t> number,
                               std::string* out) {
  if (!StartObject(out)) return;
  JsonWriter jw(out);
  jw.BeginObject();
  jw.ObjectString("name", what);
  jw.ObjectString("ph", "M");
  jw.ObjectInt("pid", p.pid);
  jw.ObjectInt("tid", tid);
  jw.ObjectBeginObject("args");
  if (number.has_value()) {
    jw.ObjectInt(absl::string_view(key), *number);
  } else {
    Str(jw, absl::string_view(key), text);
  }
  jw.End();
  jw.End();
}

void ChromeFormatter::NameProcess(Process& p, std::string* out) {
  std::string name = p.exe;
  if (!p.command.empty()) absl::StrAppend(&name, name.empty() ? "" : " ", p.command);
  if (name.empty()) name = "process";
  if (name != p.shown_name) {
    p.shown_name = name;
    Metadata("process_name", p, 0, "name", name, std::nullopt, out);
  }
  // Labels are comma-separated: the command (without commas) and the sid.
  std::string labels = absl::StrReplaceAll(p.command.empty() ? p.exe : p.command, {{",", " "}});
  absl::StrAppend(&labels, labels.empty() ? "" : ",", p.sid);
  if (labels != p.shown_labels) {
    p.shown_labels = labels;
    Metadata("process_labels", p, 0, "labels", labels, std::nullopt, out);
  }
}

void ChromeFormatter::OnProcessBegin(const reader::ProcessTrack& process, const Event& first) {
  Process& p = processes_.emplace_back();
  p.sid = process.sid;
  p.pid = pids_.Assign(process.sid);
  p.depth = process.depth;
  NameProcess(p, out_);
  Metadata("process_sort_index", p, 0, "sort_index", {}, p.depth, out_);
}

void ChromeFormatter::BeginThread(const reader::Slice& slice, const Event& e, std::string* out) {
  Process& p = processes_[slice.process];
  if (threads_.size() <= slice.thread) threads_.resize(slice.thread + 1);
  Track& t = threads_[slice.thread];
  // The kernel's thread id where the trace records it (below kLaneTidBase: reader::
  // kMaxThreadId); else the thread number.
  t.tid = e.thread_tid != 0                                   ? static_cast<int64_t>(e.thread_tid)
          : e.thread_id < static_cast<uint64_t>(kLaneTidBase) ? static_cast<int64_t>(e.thread_id)
                                                              : p.next_synthetic_tid++;
  Metadata("thread_name", p, t.tid, "name", e.thread_name, std::nullopt, out);
  Metadata("thread_sort_index", p, t.tid, "sort_index", {}, t.tid, out);
}

Track& ChromeFormatter::LaneTrack(Process& p, uint32_t lane, std::string* out) {
  if (lane < p.lanes.size()) return p.lanes[lane];
  // Lanes are taken lowest free first: a new lane is the next one.
  const size_t index = p.lanes.size();
  Track& track = p.lanes.emplace_back();
  track.tid = kLaneTidBase + static_cast<int64_t>(index);
  Metadata("thread_name", p, track.tid, "name",
           index == 0 ? std::string("children") : absl::StrCat("children ", index + 1),
           std::nullopt, out);
  Metadata("thread_sort_index", p, track.tid, "sort_index", {}, track.tid, out);
  return track;
}

void ChromeFormatter::WriteRegion(const Process& p, Track& t, const RegionSlice& region, int64_t ns,
                                  const Event* leave, std::string* out) {
  const int64_t end = Tick(t, ns);
  const int64_t esf = leave != nullptr && !leave->stack.empty() ? StackId(leave->stack) : kNoStack;
  if (!StartObject(out)) return;
  JsonWriter jw(out);
  Begin(jw, "X", region.name, region.category, p.pid, t.tid, region.begin_ns);
  RawMicros(jw, "dur", end - region.begin_ns);
  if (region.stack != kNoStack) jw.ObjectInt("sf", region.stack);
  if (esf != kNoStack) jw.ObjectInt("esf", esf);
  jw.ObjectBeginObject("args");
  if (region.msg.has_value()) Str(jw, "msg", *region.msg);
  if (region.repo.has_value()) jw.ObjectInt("repo", *region.repo);
  if (leave != nullptr && leave->msg.has_value() && *leave->msg != region.msg) {
    Str(jw, "leave_msg", *leave->msg);
  }
  jw.End();
  jw.End();
}

void ChromeFormatter::EndChild(Process& p, const reader::Slice& slice, int64_t ns, const Event* e,
                               std::string* out) {
  const ChildSlice& child = children_[slice.slot];
  Track& lane = p.lanes[slice.depth];
  const int64_t end = Tick(lane, ns);
  if (StartObject(out)) {
    JsonWriter jw(out);
    Begin(jw, "X", child.name, "process", p.pid, lane.tid, child.begin_ns);
    RawMicros(jw, "dur", end - child.begin_ns);
    jw.ObjectBeginObject("args");
    jw.ObjectRawJson("child_id", absl::StrCat(slice.id), false);
    Str(jw, "class", child.child_class);
    if (child.hook.has_value()) Str(jw, "hook", *child.hook);
    if (child.cd.has_value()) Str(jw, "cd", *child.cd);
    jw.ObjectBool("use_shell", child.use_shell);
    jw.ObjectBeginArray("argv");
    for (const std::string& arg : child.argv) jw.ArrayString(ValidUtf8(arg, &scratch_));
    jw.End();
    if (e != nullptr) {
      jw.ObjectInt("pid", e->pid);
      if (e->kind == EventKind::kChildExit) {
        jw.ObjectInt("code", e->code);
      } else {
        Str(jw, "ready", e->ready);
      }
    }
    jw.End();
    jw.End();
  }
  if (slice.link != reader::kNoIndex) {  // ended by its child_exit/child_ready, pid > 0
    Flow& flow = FlowFor(slice.link);
    if (!flow.started) {
      flow.started = true;
      FlowEvent("s", slice.link, p.pid, lane.tid, child.begin_ns, out);
      if (flow.pending_end.has_value()) EndFlow(slice.link, *flow.pending_end, out);
    }
  }
}

void ChromeFormatter::Counter(const Event& e, Process& p, Track& t, int64_t ns, std::string* out) {
  const int64_t ts = Tick(t, ns);
  if (!StartObject(out)) return;
  name_ = absl::StrCat(e.category, "/", e.label);
  if (e.kind == EventKind::kThTimer || e.kind == EventKind::kThCounter) {
    absl::StrAppend(&name_, " (", e.thread_name, ")");
  }
  const bool timer = e.kind == EventKind::kTimer || e.kind == EventKind::kThTimer;
  JsonWriter jw(out);
  Begin(jw, "C", name_, timer ? "timer" : "counter", p.pid, t.tid, ts);
  jw.ObjectBeginObject("args");
  if (timer) {
    jw.ObjectRawJson("intervals", absl::StrCat(e.intervals), false);
    // Non-finite values (only a hostile trace has them) would not be JSON.
    const auto finite = [](double v) { return std::isfinite(v) ? v : 0.0; };
    jw.ObjectDouble("t_total", 6, finite(e.t_total));
    jw.ObjectDouble("t_min", 6, finite(e.t_min));
    jw.ObjectDouble("t_max", 6, finite(e.t_max));
  } else {
    jw.ObjectRawJson("count", absl::StrCat(e.count), false);
  }
  jw.End();
  jw.End();
}

void ChromeFormatter::GaugePoint(const Event& e, Process& p, Track& t, int64_t ns,
                                 std::string* out) {
  const int64_t ts = Tick(t, ns);
  if (!StartObject(out)) return;
  name_ = absl::StrCat(e.category, "/", e.label);
  if (e.unit.has_value() && !e.unit->empty()) absl::StrAppend(&name_, " (", *e.unit, ")");
  JsonWriter jw(out);
  Begin(jw, "C", name_, "gauge", p.pid, t.tid, ts);
  jw.ObjectBeginObject("args");
  jw.ObjectInt("value", e.value_int);
  jw.End();
  jw.End();
}

int64_t ChromeFormatter::Instant(const Event& e, Process& p, Track& t, int64_t ns,
                                 std::string* out) {
  const InstantStyle style = InstantStyleOf(e);
  const int64_t ts = Tick(t, ns);
  const int64_t sf = e.stack.empty() ? kNoStack : StackId(e.stack);
  if (!StartObject(out)) return ts;
  JsonWriter jw(out);
  Begin(jw, "i", style.name, style.category, p.pid, t.tid, ts);
  jw.ObjectString("s", style.process_scope ? "p" : "t");
  if (sf != kNoStack) jw.ObjectInt("sf", sf);
  jw.ObjectBeginObject("args");
  ArgsWriter writer{*this, jw};
  VisitViewerArgs(e, writer);
  jw.End();
  jw.End();
  return ts;
}

void ChromeFormatter::OnSliceBegin(const reader::Slice& slice, const Event& e) {
  switch (slice.kind) {
    case reader::SliceKind::kThread:
      BeginThread(slice, e, out_);
      return;
    case reader::SliceKind::kRegion: {
      if (regions_.size() <= slice.slot) regions_.resize(slice.slot + 1);
      RegionSlice& region = regions_[slice.slot];
      region.begin_ns = Tick(threads_[slice.thread], now_ns_);
      // Assigned in place: slots are reused, and so is their strings' memory.
      const absl::string_view name = e.label.empty() ? absl::string_view("region") : e.label;
      region.name.assign(name.data(), name.size());
      region.category.assign(e.category.data(), e.category.size());
      AssignOptional(e.msg, &region.msg);
      region.repo = e.repo;
      region.stack = e.stack.empty() ? kNoStack : StackId(e.stack);
      return;
    }
    case reader::SliceKind::kChild: {
      Track& lane = LaneTrack(processes_[slice.process], slice.depth, out_);
      if (children_.size() <= slice.slot) children_.resize(slice.slot + 1);
      ChildSlice& child = children_[slice.slot];
      child.begin_ns = Tick(lane, now_ns_);
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
      BeginTask(slice, e, out_);
      return;
    case reader::SliceKind::kTaskSegment:
      BeginSegment(slice, out_);
      return;
  }
}

void ChromeFormatter::OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end) {
  // Only a slice's own end event is its leave (unwound and process-end ends have none).
  const Event* leave = end.cause == reader::SliceEnd::kEndEvent ? end.event : nullptr;
  switch (slice.kind) {
    case reader::SliceKind::kRegion:
      WriteRegion(processes_[slice.process], threads_[slice.thread], regions_[slice.slot], now_ns_,
                  leave, out_);
      return;
    case reader::SliceKind::kChild:
      EndChild(processes_[slice.process], slice, now_ns_, leave, out_);
      return;
    case reader::SliceKind::kThread:
    case reader::SliceKind::kExec:
      return;
    case reader::SliceKind::kTask:
      EndTask(slice, out_);
      return;
    case reader::SliceKind::kTaskSegment:
      EndSegment(slice, out_);
      return;
  }
}

void ChromeFormatter::OnEvent(const Event& e, const reader::EventTracks& at) {
  Process& p = processes_[at.process];
  Track& t = threads_[at.thread];
  std::string* out = out_;
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
      return;  // slices (a leave whose enter came before the output started has none)
    case EventKind::kGauge:
      GaugePoint(e, p, t, now_ns_, out);
      return;
    case EventKind::kCpuSample:
      return;  // the thread's CPU profile (OnSample)
    case EventKind::kChildExit:
    case EventKind::kChildReady:
      if (at.slice_ended) return;
      break;  // its child_start came before the output started: an instant
    case EventKind::kTimer:
    case EventKind::kThTimer:
    case EventKind::kCounter:
    case EventKind::kThCounter:
      Counter(e, p, t, now_ns_, out);
      return;
    case EventKind::kStart:
      if (!e.argv.empty()) {
        p.exe = std::string(ValidUtf8(Basename(e.argv.front()), &scratch_));
        NameProcess(p, out);
      }
      break;
    case EventKind::kCmdName:
      p.command = std::string(ValidUtf8(e.cmd_name, &scratch_));
      NameProcess(p, out);
      break;
    case EventKind::kVersion:
    case EventKind::kTooManyFiles:
    case EventKind::kExit:
    case EventKind::kSignal:
    case EventKind::kAtexit:
    case EventKind::kError:
    case EventKind::kCmdPath:
    case EventKind::kCmdAncestry:
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
  const int64_t ts = Instant(e, p, t, now_ns_, out);
  // The end of the flow from the parent's child slice.
  if (at.parent_link != reader::kNoIndex) EndFlow(at.parent_link, FlowEnd{p.pid, t.tid, ts}, out);
}

void ChromeFormatter::Add(const Event& e, std::string* out) {
  out_ = out;
  now_ns_ = RelativeNs(e.time);
  model_.Add(e, *this);
  if (e.kind == EventKind::kAtexit || e.kind == EventKind::kSignal) {
    // The process ends: its children tracks and the thread's regions end here.
    model_.EndChildren(at_.process, e.time, *this);
    model_.EndThreadRegions(at_.thread, e.time, *this);
  }
}

void ChromeFormatter::Finish(std::string* out) {
  out_ = out;
  for (uint32_t index = 0; index < processes_.size(); ++index) {
    now_ns_ = processes_[index].last_ns;
    const absl::Time last = model_.process(index).last_time;
    model_.EndChildren(index, last, *this, reader::SliceEnd::kFinish);
    model_.EndProcess(index, last, *this, reader::SliceEnd::kFinish);
  }
  WriteProfiles(out);
  out->append(first_ ? "{\"traceEvents\":[\n]" : "\n]");
  out->append(",\n\"stackFrames\":{");
  for (size_t i = 0; i < frames_.size(); ++i) {
    const StackFrame& frame = frames_[i];
    absl::StrAppend(out, i == 0 ? "\n\"" : ",\n\"", i + 1, "\":");
    JsonWriter jw(out);
    jw.BeginObject();
    jw.ObjectString("name", frame.name);
    if (!frame.category.empty()) jw.ObjectString("category", frame.category);
    if (frame.parent != kNoStack) jw.ObjectString("parent", absl::StrCat(frame.parent));
    jw.End();
  }
  out->append(frames_.empty() ? "}\n}\n" : "\n}\n}\n");
  first_ = true;
  have_base_ = false;
  model_ = reader::TrackModel();
  processes_.clear();
  threads_.clear();
  pids_.Clear();
  flows_.clear();
  tasks_.clear();
  next_task_flow_ = 1;
  frames_.clear();
  frame_ids_.clear();
  profiles_.clear();
}

}  // namespace
}  // namespace tracewire::targets::chrome_internal

namespace tracewire::targets {

void AppendChromeMicros(int64_t ns, std::string* out) {
  OutputCursor cursor(out);
  chrome_internal::PutChromeMicros(ns, cursor);
}

std::unique_ptr<Formatter> MakeChromeFormatter(const FormatterOptions& options) {
  return std::make_unique<chrome_internal::ChromeFormatter>();
}

}  // namespace tracewire::targets
