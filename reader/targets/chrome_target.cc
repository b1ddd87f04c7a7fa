#include "reader/targets/chrome_target.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/sid_parts.h"
#include "reader/targets/json_check.h"
#include "reader/targets/json_string_cache.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/output_cursor.h"
#include "reader/targets/process_ids.h"
#include "reader/targets/valid_utf8.h"
#include "reader/track_model.h"

namespace tracewire::targets {
namespace {

// AppendChromeMicros through a cursor: `ns` as microseconds with three decimals.
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

using reader::Event;
using reader::EventKind;

constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
// Times are clamped to this many nanoseconds either side of the time base (about 73 years),
// so that every sum and difference of two times stays far from int64_t overflow.
constexpr int64_t kMaxOffsetNs = int64_t{1} << 61;
// A first event further than this from the Unix epoch gets the epoch as the time base.
constexpr absl::Duration kMaxBaseOffset = absl::Hours(24 * 365 * 250);
// tids of the children tracks: above any thread number a real trace uses.
constexpr int64_t kLaneTidBase = 1000000000;
// tids for thread numbers too large to be used as they are.
constexpr int64_t kSyntheticTidBase = 2000000000;
// Distinct stack frames kept; an event whose stack would need more gets no "sf".
constexpr size_t kMaxStackFrames = size_t{1} << 20;
constexpr int64_t kNoStack = 0;  // stack frame ids start at 1
// Call-tree nodes kept per thread's CPU profile; deeper new paths end at the last node.
constexpr size_t kMaxProfileNodes = size_t{1} << 20;
// Samples per ProfileChunk event.
constexpr size_t kSamplesPerChunk = 10000;
constexpr char kProfileCategory[] = "disabled-by-default-v8.cpu_profiler";

// An open region: what its X event needs when the region ends (indexed by slot). Its
// strings are the trace's bytes (made valid UTF-8 when written).
struct RegionSlice {
  int64_t begin_ns = 0;
  std::string name;
  std::string category;
  std::optional<std::string> msg;
  std::optional<int64_t> repo;
  int64_t stack = kNoStack;
};

// A running child process on a children track (indexed by slot).
struct ChildSlice {
  int64_t begin_ns = 0;
  std::string name;
  std::string child_class;
  std::optional<std::string> hook;
  std::optional<std::string> cd;
  bool use_shell = false;
  std::vector<std::string> argv;
};

// Where a task segment began: what its flow event binds to (the segment's X has the same
// ts, pid, tid and cat).
struct FlowStop {
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t ts = 0;
};

// A task (task_begin -> task_end): its async slice and the segments of threads that
// worked for it, joined by one flow when it ends. Keyed by (process index, task ID).
struct TaskInfo {
  std::string name;
  std::string category;
  uint64_t parent = 0;
  int64_t pid = 0;
  std::vector<FlowStop> stops;  // the segments begun while it was open, in time order
};

// An open task segment (indexed by slot).
struct SegmentSlice {
  int64_t begin_ns = 0;
  std::string name;
  std::string category;
  uint64_t task = 0;
};

// One timeline: a thread, or a lane of a children track.
struct Track {
  int64_t tid = 0;
  int64_t last_ns = kNoTime;  // the time of its last event
};

// A process (indexed as the track model's processes).
struct Process {
  std::string sid;
  int64_t pid = 0;
  int depth = 0;
  std::string exe;      // basename of start's argv[0]
  std::string command;  // cmd_name
  std::string shown_name;
  std::string shown_labels;
  int64_t last_ns = kNoTime;
  int64_t next_synthetic_tid = kSyntheticTidBase;
  std::vector<Track> lanes;  // children tracks, by lane
};

// Where a flow ends: the child process's first event.
struct FlowEnd {
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t ts = 0;
};

// A flow from a child slice to the child process: the track model's child link (its id is
// the link's). Its "s" is written with the child slice (when the child ends: only then is
// its pid known), its "f" after the "s" (the DevTools engine reads flow events in file
// order).
struct Flow {
  bool started = false;
  bool finished = false;
  std::optional<FlowEnd> pending_end;  // the child's first event, seen before the "s"
};

struct StackFrame {
  std::string name;
  std::string category;
  int64_t parent = kNoStack;
};

// A node of a thread's CPU profile call tree (the CPU profile format's ProfileNode).
struct ProfileNode {
  int64_t parent = 0;  // node id; 0 for the root
  std::string function;
  std::string url;
  int64_t line = -1;  // 0-based, -1 if unknown
};

// A thread's CPU samples, written as Profile and ProfileChunk events at Finish().
struct ThreadProfile {
  std::vector<ProfileNode> nodes;                 // node id - 1 -> node; node 1 is "(root)"
  absl::flat_hash_map<std::string, int64_t> ids;  // parent id | function | url -> node id
  std::vector<int64_t> samples;                   // the leaf node of each sample
  std::vector<int64_t> times_ns;                  // each sample's time, non-decreasing
};

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

bool IsProcessLifeEvent(EventKind kind) {
  return kind == EventKind::kVersion || kind == EventKind::kStart || kind == EventKind::kExit ||
         kind == EventKind::kAtexit || kind == EventKind::kSignal;
}

std::optional<std::string> CopyOptional(const std::optional<absl::string_view>& value) {
  if (!value.has_value()) return std::nullopt;
  return std::string(*value);
}

// *to = value, reusing the memory *to holds.
void AssignOptional(const std::optional<absl::string_view>& value, std::optional<std::string>* to) {
  if (!value.has_value()) {
    to->reset();
  } else if (to->has_value()) {
    (*to)->assign(value->data(), value->size());
  } else {
    to->emplace(*value);
  }
}

// Every event goes through the same steps whether it is written or skipped: the state
// updates (track model, times, slots, flows, stack frames, profiles, pids, names) happen
// first, in the same order; then, only when writing, the event objects are rendered.
// out_ is null while skipping: each emitter updates the state, calls StartObject (which
// counts the object, and tells whether to render it) and renders only if it returns true.
class ChromeFormatter : public Formatter, public reader::TrackListener {
 public:
  void Write(const Event& e, std::string* out) override { Add(e, out); }
  void Skip(const Event& e) override { Add(e, nullptr); }
  bool skips_cheaply() const override { return true; }
  void Finish(std::string* out) override;

  // The track model's callbacks (reader/track_model.h); they write to out_ (none if null).
  void OnProcessBegin(const reader::ProcessTrack& process, const Event& first);
  void OnSliceBegin(const reader::Slice& slice, const Event& e);
  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end);
  void OnEvent(const Event& e, const reader::EventTracks& at);
  void OnSample(const Event& e, const reader::SampleContext& at);

 private:
  // Updates the state for `e` and, unless `out` is null, appends its output to *out.
  void Add(const Event& e, std::string* out);
  // Accounts for one more event object in the output. Returns false (writing nothing)
  // when skipping (`out` null); else appends the object's separator, the output's opening
  // for the first object, and returns true.
  bool StartObject(std::string* out);
  // Writes the Profile and ProfileChunk events of every sampled thread.
  void WriteProfiles(std::string* out);
  // Starts the thread track of `slice` (a thread lifetime).
  void BeginThread(const reader::Slice& slice, const Event& e, std::string* out);
  // The track of lane `lane` of `p`'s children, written (metadata) if new.
  Track& LaneTrack(Process& p, uint32_t lane, std::string* out);
  void NameProcess(Process& p, std::string* out);
  Flow& FlowFor(uint32_t link);

  // Nanoseconds of `t` since the output's time base (set by the first call), clamped to
  // +-kMaxOffsetNs.
  int64_t RelativeNs(absl::Time t);
  // The time of the next event on `track`: `ns`, or 1 ns after its previous event.
  static int64_t Tick(Track& track, int64_t ns);
  // The id of the leaf frame of `stack` in the stackFrames dictionary, kNoStack if none.
  int64_t StackId(absl::Span<const reader::SymbolFrame> stack);

  // Opens one event object (after StartObject) with name, cat (if not empty), ph, ts, pid
  // and tid.
  void Begin(JsonWriter& jw, const char* ph, absl::string_view name, absl::string_view cat,
             int64_t pid, int64_t tid, int64_t ts);
  void RawMicros(JsonWriter& jw, JsonKey key, int64_t ns);
  void Metadata(const char* what, const Process& p, int64_t tid, const char* key,
                absl::string_view text, std::optional<int64_t> number, std::string* out);
  void Str(JsonWriter& jw, JsonKey key, absl::string_view value);
  void StrList(JsonWriter& jw, absl::string_view key, const std::vector<absl::string_view>& list,
               absl::string_view first = {});

  void WriteRegion(const Process& p, Track& t, const RegionSlice& region, int64_t ns,
                   const Event* leave, std::string* out);
  // Ends the child slice `slice` at `ns`; `e` is its child_exit or child_ready (null when
  // the process ends first).
  void EndChild(Process& p, const reader::Slice& slice, int64_t ns, const Event* e,
                std::string* out);
  // Writes the instant of `e`; returns its ts.
  int64_t Instant(const Event& e, Process& p, Track& t, int64_t ns, std::string* out);
  void Counter(const Event& e, Process& p, Track& t, int64_t ns, std::string* out);
  // A gauge sample: one point of its "C" series.
  void GaugePoint(const Event& e, Process& p, Track& t, int64_t ns, std::string* out);
  // Task slices (async b/e) and segments (X on the thread, bound to the task's flow).
  void BeginTask(const reader::Slice& slice, const Event& e, std::string* out);
  void EndTask(const reader::Slice& slice, std::string* out);
  void BeginSegment(const reader::Slice& slice, std::string* out);
  void EndSegment(const reader::Slice& slice, std::string* out);
  void AsyncEvent(const char* ph, const TaskInfo& task, uint64_t id, int64_t tid, int64_t ts,
                  std::string* out);
  void FlowEvent(const char* ph, int64_t id, int64_t pid, int64_t tid, int64_t ts,
                 std::string* out);
  // Writes the "f" of flow `link` at `end` if its "s" is written, else keeps `end` for
  // later.
  void EndFlow(uint32_t link, const FlowEnd& end, std::string* out);

  bool first_ = true;
  bool have_base_ = false;
  absl::Time base_;
  reader::TrackModel model_;
  std::string* out_ = nullptr;          // the output of the current Write() or Finish(); null
                                        // in Skip()
  int64_t now_ns_ = 0;                  // the time slices begin and end at (the event's)
  reader::EventTracks at_;              // where the current event is
  std::vector<Process> processes_;      // by the model's process index
  std::vector<Track> threads_;          // by the model's thread index
  std::vector<RegionSlice> regions_;    // open regions' data, by slot
  std::vector<ChildSlice> children_;    // running children's data, by slot
  std::vector<SegmentSlice> segments_;  // open task segments, by slot
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, TaskInfo> tasks_;
  int64_t next_task_flow_ = 1;
  ProcessIds pids_{/*reserve_synthetic_range=*/false};
  std::vector<Flow> flows_;              // by link id - 1
  std::vector<StackFrame> frames_;       // frame id - 1 -> frame
  std::vector<ThreadProfile> profiles_;  // by the model's thread index
  absl::flat_hash_map<std::string, int64_t> frame_ids_;
  std::string scratch_;
  std::string name_;
  // The quoted (and UTF-8-repaired) names and categories of the events' first members.
  JsonStringCache strings_{ValidUtf8};
};

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

Flow& ChromeFormatter::FlowFor(uint32_t link) {
  if (flows_.size() < link) flows_.resize(link);
  return flows_[link - 1];
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

void ChromeFormatter::StrList(JsonWriter& jw, absl::string_view key,
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
  t.tid = e.thread_id < static_cast<uint64_t>(kLaneTidBase) ? static_cast<int64_t>(e.thread_id)
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

int64_t ChromeFormatter::Instant(const Event& e, Process& p, Track& t, int64_t ns,
                                 std::string* out) {
  absl::string_view name = reader::EventKindName(e.kind);
  absl::string_view cat = IsProcessLifeEvent(e.kind) ? "process" : "trace2";
  const char* scope = "t";
  switch (e.kind) {
    case EventKind::kData:
    case EventKind::kDataJson:
      if (!e.label.empty()) name = e.label;
      cat = e.category;
      break;
    case EventKind::kPrintf:
      cat = "printf";
      break;
    case EventKind::kError:
      cat = "error";
      scope = "p";
      break;
    default:
      break;
  }
  const int64_t ts = Tick(t, ns);
  const int64_t sf = e.stack.empty() ? kNoStack : StackId(e.stack);
  if (!StartObject(out)) return ts;
  JsonWriter jw(out);
  Begin(jw, "i", name, cat, p.pid, t.tid, ts);
  jw.ObjectString("s", scope);
  if (sf != kNoStack) jw.ObjectInt("sf", sf);
  jw.ObjectBeginObject("args");
  switch (e.kind) {
    case EventKind::kVersion:
      Str(jw, "exe", e.exe);
      break;
    case EventKind::kStart:
      StrList(jw, "argv", e.argv);
      break;
    case EventKind::kExit:
    case EventKind::kAtexit:
      jw.ObjectInt("code", e.code);
      break;
    case EventKind::kSignal:
      jw.ObjectRawJson("signo", absl::StrCat(e.signo), false);
      break;
    case EventKind::kError:
      if (e.msg.has_value()) Str(jw, "msg", *e.msg);
      if (e.fmt.has_value()) Str(jw, "fmt", *e.fmt);
      break;
    case EventKind::kPrintf:
      if (e.msg.has_value()) Str(jw, "msg", *e.msg);
      break;
    case EventKind::kCmdPath:
      Str(jw, "path", e.cmd_path);
      break;
    case EventKind::kCmdAncestry:
      StrList(jw, "ancestry", e.ancestry);
      break;
    case EventKind::kCmdName:
      Str(jw, "name", e.cmd_name);
      if (e.cmd_hierarchy.has_value()) Str(jw, "hierarchy", *e.cmd_hierarchy);
      break;
    case EventKind::kCmdMode:
      Str(jw, "name", e.cmd_mode);
      break;
    case EventKind::kAlias:
      Str(jw, "alias", e.alias);
      StrList(jw, "argv", e.argv);
      break;
    case EventKind::kChildExit:
    case EventKind::kChildReady:
      jw.ObjectRawJson("child_id", absl::StrCat(e.child_id), false);
      jw.ObjectInt("pid", e.pid);
      if (e.kind == EventKind::kChildExit) {
        jw.ObjectInt("code", e.code);
      } else {
        Str(jw, "ready", e.ready);
      }
      break;
    case EventKind::kExec:
      jw.ObjectRawJson("exec_id", absl::StrCat(e.exec_id), false);
      if (e.exec_exe.has_value()) Str(jw, "exe", *e.exec_exe);
      StrList(jw, "argv", e.argv);
      break;
    case EventKind::kExecResult:
      jw.ObjectRawJson("exec_id", absl::StrCat(e.exec_id), false);
      jw.ObjectInt("code", e.code);
      break;
    case EventKind::kThreadStart:
    case EventKind::kThreadExit:
      Str(jw, "thread", e.thread_name);
      break;
    case EventKind::kDefParam:
      Str(jw, "scope", e.param_scope);
      Str(jw, "param", e.param);
      if (e.param_value.has_value()) Str(jw, "value", *e.param_value);
      break;
    case EventKind::kDefRepo:
      if (e.repo.has_value()) jw.ObjectInt("repo", *e.repo);
      Str(jw, "worktree", e.worktree);
      break;
    case EventKind::kData:
    case EventKind::kDataJson:
      if (e.value_kind == reader::ValueKind::kInt) {
        jw.ObjectInt("value", e.value_int);
      } else if (e.value_kind == reader::ValueKind::kJson && IsJsonText(e.value_string)) {
        jw.ObjectRawJson("value", e.value_string, false);
      } else {
        Str(jw, "value", e.value_string);
      }
      jw.ObjectInt("nesting", e.nesting);
      if (e.repo.has_value()) jw.ObjectInt("repo", *e.repo);
      break;
    case EventKind::kCpuSamplesLost:
      jw.ObjectInt("count", static_cast<int64_t>(e.count));
      break;
    case EventKind::kExperimental:
      jw.ObjectInt("wire_type", e.wire_type);
      jw.ObjectInt("bytes", static_cast<int64_t>(e.experimental_data.size()));
      break;
    default:
      break;
  }
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
    default:
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

void ChromeFormatter::OnSample(const Event& e, const reader::SampleContext& at) {
  if (profiles_.size() <= at.thread) profiles_.resize(at.thread + 1);
  ThreadProfile& profile = profiles_[at.thread];
  if (profile.nodes.empty()) profile.nodes.push_back(ProfileNode{0, "(root)", "", -1});
  int64_t node = 1;
  std::string key;
  // Outermost frame first: each node's parent is its caller's.
  for (auto frame = e.stack.rbegin(); frame != e.stack.rend(); ++frame) {
    const absl::string_view function = frame->func;
    key.clear();
    absl::StrAppend(
        &key, node, "|",
        function.empty() ? absl::StrCat("0x", absl::Hex(frame->pc)) : std::string(function));
    absl::StrAppend(&key, "|", frame->file);
    auto it = profile.ids.find(key);
    if (it != profile.ids.end()) {
      node = it->second;
      continue;
    }
    if (profile.nodes.size() >= kMaxProfileNodes) break;
    ProfileNode n;
    n.parent = node;
    n.function = function.empty() ? absl::StrCat("0x", absl::Hex(frame->pc))
                                  : std::string(ValidUtf8(function, &scratch_));
    n.url = std::string(ValidUtf8(frame->file, &scratch_));
    n.line = frame->line != 0 ? static_cast<int64_t>(frame->line) - 1 : -1;
    profile.nodes.push_back(std::move(n));
    node = static_cast<int64_t>(profile.nodes.size());
    profile.ids.emplace(key, node);
  }
  const int64_t ns =
      profile.times_ns.empty() ? now_ns_ : std::max(now_ns_, profile.times_ns.back());
  profile.samples.push_back(node);
  profile.times_ns.push_back(ns);
}

void ChromeFormatter::WriteProfiles(std::string* out) {
  for (uint32_t thread = 0; thread < profiles_.size(); ++thread) {
    const ThreadProfile& profile = profiles_[thread];
    if (profile.samples.empty()) continue;
    const Process& p = processes_[model_.thread(thread).process];
    const int64_t tid = threads_[thread].tid;
    const std::string id = absl::StrCat("0x", absl::Hex(thread + 1));
    // Microseconds, whole: the profile starts at its first sample, and each time delta
    // is the difference of two whole-microsecond times (never negative).
    auto micros = [](int64_t ns) { return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000); };
    const int64_t start_us = micros(profile.times_ns.front());
    {
      StartObject(out);
      JsonWriter jw(out);
      Begin(jw, "P", "Profile", kProfileCategory, p.pid, tid, start_us * 1000);
      jw.ObjectString("id", id);
      jw.ObjectBeginObject("args");
      jw.ObjectBeginObject("data");
      jw.ObjectInt("startTime", start_us);
      jw.End();
      jw.End();
      jw.End();
    }
    size_t next_node = 0;  // nodes written so far
    int64_t previous_us = start_us;
    for (size_t first = 0; first < profile.samples.size(); first += kSamplesPerChunk) {
      const size_t last = std::min(profile.samples.size(), first + kSamplesPerChunk);
      // The nodes the chunk's samples are the first to use (ids grow along the samples).
      int64_t max_node = 0;
      for (size_t i = first; i < last; ++i) max_node = std::max(max_node, profile.samples[i]);
      StartObject(out);
      JsonWriter jw(out);
      Begin(jw, "P", "ProfileChunk", kProfileCategory, p.pid, tid,
            micros(profile.times_ns[first]) * 1000);
      jw.ObjectString("id", id);
      jw.ObjectBeginObject("args");
      jw.ObjectBeginObject("data");
      jw.ObjectBeginObject("cpuProfile");
      jw.ObjectBeginArray("nodes");
      for (; next_node < static_cast<size_t>(max_node); ++next_node) {
        const ProfileNode& node = profile.nodes[next_node];
        jw.ArrayBeginObject();
        jw.ObjectInt("id", static_cast<int64_t>(next_node + 1));
        if (node.parent != 0) jw.ObjectInt("parent", node.parent);
        jw.ObjectBeginObject("callFrame");
        jw.ObjectString("functionName", node.function);
        jw.ObjectString("url", node.url);
        jw.ObjectInt("scriptId", 0);
        jw.ObjectInt("lineNumber", node.line);
        jw.ObjectInt("columnNumber", -1);
        jw.End();
        jw.End();
      }
      jw.End();
      jw.ObjectBeginArray("samples");
      for (size_t i = first; i < last; ++i) jw.ArrayInt(profile.samples[i]);
      jw.End();
      jw.End();
      jw.ObjectBeginArray("timeDeltas");
      for (size_t i = first; i < last; ++i) {
        const int64_t us = micros(profile.times_ns[i]);
        jw.ArrayInt(us - previous_us);
        previous_us = us;
      }
      jw.End();
      jw.End();
      jw.End();
      jw.End();
    }
  }
}

}  // namespace

void AppendChromeMicros(int64_t ns, std::string* out) {
  OutputCursor cursor(out);
  PutChromeMicros(ns, cursor);
}

std::unique_ptr<Formatter> MakeChromeFormatter(const FormatterOptions& options) {
  return std::make_unique<ChromeFormatter>();
}

}  // namespace tracewire::targets
