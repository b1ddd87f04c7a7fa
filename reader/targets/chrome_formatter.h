// ChromeFormatter: the class and state of the Chrome Trace Event formatter
// (MakeChromeFormatter, chrome_target.h), shared by the files that implement it, one concept
// each: chrome_target.cc (processes, threads, regions, children, instants, counters and
// gauges), chrome_tasks-inl.h (tasks, their segments on threads and the flows joining them)
// and chrome_profile-inl.h (CPU samples as Profile and ProfileChunk events). Internal to the
// target.
#ifndef TRACEWIRE_READER_TARGETS_CHROME_FORMATTER_H_
#define TRACEWIRE_READER_TARGETS_CHROME_FORMATTER_H_

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
#include "reader/targets/formatter.h"
#include "reader/targets/json_check.h"
#include "reader/targets/json_string_cache.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/output_cursor.h"
#include "reader/targets/process_ids.h"
#include "reader/targets/valid_utf8.h"
#include "reader/targets/viewer_args.h"
#include "reader/track_model.h"

namespace tracewire::targets::chrome_internal {
// Internal linkage: the header is included by chrome_target.cc only, and the formatter is
// one translation unit (with chrome_tasks-inl.h and chrome_profile-inl.h), so the compiler
// inlines its helpers as it would in one file.
namespace {

// AppendChromeMicros (chrome_target.h) through a cursor: `ns` as microseconds with three
// decimals.
void PutChromeMicros(int64_t ns, OutputCursor& cursor);

using reader::Event;
using reader::EventKind;

inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
// Times are clamped to this many nanoseconds either side of the time base (about 73 years),
// so that every sum and difference of two times stays far from int64_t overflow.
inline constexpr int64_t kMaxOffsetNs = int64_t{1} << 61;
// A first event further than this from the Unix epoch gets the epoch as the time base.
inline constexpr absl::Duration kMaxBaseOffset = absl::Hours(24 * 365 * 250);
// tids of the children tracks: above any thread number a real trace uses.
inline constexpr int64_t kLaneTidBase = 1000000000;
// tids for thread numbers too large to be used as they are.
inline constexpr int64_t kSyntheticTidBase = 2000000000;
// Distinct stack frames kept; an event whose stack would need more gets no "sf".
inline constexpr size_t kMaxStackFrames = size_t{1} << 20;
inline constexpr int64_t kNoStack = 0;  // stack frame ids start at 1
// Call-tree nodes kept per thread's CPU profile; deeper new paths end at the last node.
inline constexpr size_t kMaxProfileNodes = size_t{1} << 20;
// Samples per ProfileChunk event.
inline constexpr size_t kSamplesPerChunk = 10000;
inline constexpr char kProfileCategory[] = "disabled-by-default-v8.cpu_profiler";

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

inline absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

inline std::optional<std::string> CopyOptional(const std::optional<absl::string_view>& value) {
  if (!value.has_value()) return std::nullopt;
  return std::string(*value);
}

// *to = value, reusing the memory *to holds.
inline void AssignOptional(const std::optional<absl::string_view>& value,
                           std::optional<std::string>* to) {
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
  // Writes an event's viewer arguments (viewer_args.h) as members of an "args" object.
  struct ArgsWriter {
    ChromeFormatter& f;
    JsonWriter& jw;
    // The viewer argument names need no escape (viewer_args_test checks).
    static JsonKey Key(ArgName name) { return JsonKey::KnownPlain(ArgNameText(name)); }
    void Str(ArgName name, absl::string_view value) { f.Str(jw, Key(name), value); }
    void Int(ArgName name, int64_t value) { jw.ObjectInt(Key(name), value); }
    void Uint(ArgName name, uint64_t value) { jw.ObjectRawValue(Key(name)).PutUint(value); }
    void List(ArgName name, const std::vector<absl::string_view>& list) {
      f.StrList(jw, Key(name), list, "");
    }
    void Json(ArgName name, absl::string_view json) { jw.ObjectRawJson(Key(name), json, false); }
  };
  void Str(JsonWriter& jw, JsonKey key, absl::string_view value);
  void StrList(JsonWriter& jw, JsonKey key, const std::vector<absl::string_view>& list,
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

}  // namespace
}  // namespace tracewire::targets::chrome_internal

#endif  // TRACEWIRE_READER_TARGETS_CHROME_FORMATTER_H_
