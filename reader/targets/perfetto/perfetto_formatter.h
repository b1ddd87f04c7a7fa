// The Perfetto formatter's state and its parts, shared by the files that write them
// (internal to //reader/targets/perfetto:perfetto_target; perfetto_target.h is the
// interface): perfetto_target.cc (events and slices, the formatter's entry points),
// perfetto_packets.cc (sequences, packets, interning), perfetto_tracks.cc (track
// descriptors, the process tree, lanes, counters), perfetto_tasks.cc (tasks, their
// segments and flows), perfetto_samples.cc (CPU samples).
#ifndef TRACEWIRE_READER_TARGETS_PERFETTO_PERFETTO_FORMATTER_H_
#define TRACEWIRE_READER_TARGETS_PERFETTO_PERFETTO_FORMATTER_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "reader/targets/perfetto/perfetto_trace.pb.h"
#include "reader/targets/perfetto/track_event_encoder.h"
#include "reader/targets/process_ids.h"
#include "reader/targets/viewer_args.h"
#include "reader/track_model.h"

namespace tracewire::targets::perfetto_export {

namespace pb = ::tracewire::perfetto;
using reader::Event;
using reader::EventKind;

inline constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
// Times are clamped to [0, 2^62] ns since the Unix epoch (Perfetto's times are unsigned).
inline constexpr int64_t kMaxNs = int64_t{1} << 62;
// tids of the threads other than main (whose tid is the pid): unique in the output.
inline constexpr int32_t kSyntheticTidBase = int32_t{1} << 30;
// Task flows' ids start here (the child process flows' are the track model's link ids).
inline constexpr uint64_t kTaskFlowBase = uint64_t{1} << 62;
// A CPU sample's weight is written as that many samples, up to this many.
inline constexpr uint64_t kMaxSampleWeight = 64;
// Field number and wire type of Trace.packet: each packet is this byte, its length, itself.
inline constexpr char kTracePacketTag = (1 << 3) | 2;

inline constexpr uint32_t kStateCleared = pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED;
inline constexpr uint32_t kNeedsState = pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE;

// The debug annotation names (viewer_args.h), interned per sequence by index (no hashing
// on the hot path).
using Arg = ::tracewire::targets::ArgName;
// At least the number of Arg values.
inline constexpr size_t kMaxArgs = 64;
static_assert(static_cast<size_t>(Arg::kNumArgNames) <= kMaxArgs);

// One interning table of a sequence: string -> iid (from 1).
struct InternTable {
  absl::flat_hash_map<std::string, uint64_t> ids;
  // A cache in front of `ids`, picked by the address of the text: the reader's strings
  // live in its tables, so a name seen again usually comes from the same address. An
  // entry is used only if its text equals the one looked up.
  struct Recent {
    std::string text;
    uint64_t iid = 0;  // 0: empty
  };
  static constexpr size_t kRecent = 64;
  std::array<Recent, kRecent> recent;
};

// A packet sequence: one per thread.
struct Sequence {
  uint32_t id = 0;         // trusted_packet_sequence_id
  bool started = false;    // its first packet (clearing the state) is written
  int64_t clock_ns = 0;    // the incremental clock's last value
  InternTable names;       // EventName
  InternTable categories;  // EventCategory
  // DebugAnnotationName: iid of each Arg (0: not yet interned), and the count so far.
  std::array<uint64_t, kMaxArgs> arg_iids = {};
  uint64_t annotation_names = 0;
  // CPU samples' interning tables: function name -> iid, "<function iid>:<rel_pc>" -> frame
  // iid, "<frame iid>,..." -> callstack iid.
  absl::flat_hash_map<std::string, uint64_t> functions, frames, callstacks;
  absl::flat_hash_map<std::string, uint64_t> mappings, mapping_paths;  // module path, component
};

// A timeline whose times strictly increase: a thread, or a lane of a children track.
struct Track {
  uint64_t uuid = 0;
  int64_t last_ns = kNoTime;
};

// The lanes of the tasks of one name: a track each, for one task at a time.
struct TaskLanes {
  std::vector<Track> tracks;
  // The free lanes, lowest first: a task takes the lowest, so that the lanes are as many
  // as the most tasks of the name open at once.
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free;
};

// Where an open task slice is (indexed by slot).
struct TaskSlice {
  std::string name;
  uint32_t lane = 0;
};

struct Thread {
  Track track;
  uint64_t segment_track = 0;  // its task segments' track (0: not described yet)
  uint32_t process = 0;
  int32_t tid = 0;
  std::string name;
  Sequence sequence;
};

struct Process {
  std::string sid;
  uint64_t uuid = 0;
  int32_t pid = 0;
  int32_t ppid = 0;  // the parent process's pid when it is in the output (0: none)
  std::vector<std::string> argv;
  bool described = false;
  int64_t last_ns = kNoTime;
  std::vector<Track> lanes;  // children tracks, by lane
  // Task tracks by task name: the lanes of one name all carry that name (the UI shows
  // them as one track with rows).
  absl::flat_hash_map<std::string, TaskLanes> task_lanes;
};

// An open region's data for its end (indexed by slot).
struct RegionSlice {
  std::optional<std::string> msg;
};

// A running child process (indexed by slot).
struct ChildSlice {
  int64_t begin_ns = 0;
  uint32_t thread = 0;  // the thread that started it (its packets go on its sequence)
  std::string name;
  std::string child_class;
  std::optional<std::string> hook;
  std::optional<std::string> cd;
  bool use_shell = false;
  std::vector<std::string> argv;
};

// A task segment written when it is known whether it ends its task's flow.
struct HeldSegment {
  uint32_t thread = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

// A task (task_begin -> task_end), keyed by (process index, task ID): its slice on a task
// track, and the flow through the segments begun while it was open (its stops), in time
// order. The flow's last stop terminates it, so the latest stop is written only once the
// task has ended or a later stop has begun; the state lives until the task has ended and
// all its stops are written.
struct TaskState {
  std::string name;
  std::string category;
  uint64_t flow = 0;  // the flow's id
  uint32_t stops = 0;
  uint32_t open_stops = 0;  // stops not ended yet
  bool ended = false;
  uint64_t latest_serial = 0;       // the latest stop (0: none)
  uint32_t latest_slot = 0;         // its slot while it is open
  bool latest_open = false;         // it has not ended yet
  std::optional<HeldSegment> held;  // it has ended and waits
};

// An open task segment (indexed by slot).
struct SegmentSlice {
  int64_t begin_ns = 0;
  uint64_t task = 0;
  uint64_t serial = 0;       // unique per segment
  bool stop = false;         // a stop of its task's flow
  uint64_t flow = 0;         // that flow's id
  uint64_t orphan_flow = 0;  // its task state was replaced: the flow it terminates (0: none)
  std::string name;
  std::string category;
};

// A flow from a child slice to its child process (by the track model's link id).
struct Flow {
  bool finished = false;  // both ends written
  // The child process's first event: (thread, ns).
  std::optional<std::pair<uint32_t, int64_t>> child_start;
};

class PerfettoFormatter : public Formatter, public reader::TrackListener {
 public:
  void Write(const Event& e, std::string* out) override { Add(e, out); }
  void Skip(const Event& e) override { Add(e, /*out=*/nullptr); }
  bool skips_cheaply() const override { return true; }
  void Finish(std::string* out) override;

  // The track model's callbacks (reader/track_model.h); they write to out_ (or, when
  // skipping, only update the state).
  void OnProcessBegin(const reader::ProcessTrack& process, const Event& first);
  void OnSliceBegin(const reader::Slice& slice, const Event& e);
  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end);
  void OnEvent(const Event& e, const reader::EventTracks& at);
  // A CPU sample: a PerfSample on its thread (pid, tid) with its stack interned.
  void OnSample(const Event& e, const reader::SampleContext& at);

 private:
  static int64_t Tick(Track& track, int64_t ns) {
    if (track.last_ns != kNoTime && ns <= track.last_ns) ns = track.last_ns + 1;
    track.last_ns = ns;
    return ns;
  }

  // Appends the packets of `e` to *out; with a null `out` (Skip), makes the same state
  // updates and builds no packet. The code above the helpers below is the same either way:
  // the helpers that build packets (StartSequence, StartEvent, StartDescriptor, the
  // interning and annotation helpers) update the state they own (a sequence's clock,
  // "started" flag and interned iids) in both cases and build nothing when skipping, so
  // that a string interned or a track described in a skipped event is not written again.
  void Add(const Event& e, std::string* out);
  // False while skipping.
  bool writing() const { return out_ != nullptr; }

  // Starts a track event packet in encoder_ on `thread`'s sequence (writing the
  // sequence's first packet first if needed), of `type` on `track_uuid` (0: the thread's),
  // timed `ns` on the sequence's incremental clock (which must not go back).
  void StartEvent(Thread& thread, int64_t ns, pb::TrackEvent::Type type, uint64_t track_uuid = 0);
  // The same with an absolute REALTIME time (for packets out of the sequence's time order).
  void StartAbsoluteEvent(Thread& thread, int64_t ns, pb::TrackEvent::Type type,
                          uint64_t track_uuid);
  // Appends the event packet to out_.
  void EndEvent() {
    if (writing()) encoder_.End(out_);
  }
  // Starts packet_ (a descriptor) on `thread`'s sequence at REALTIME `ns` and returns true;
  // when skipping, only starts the sequence and returns false (build no packet then).
  [[nodiscard]] bool StartDescriptor(Thread& thread, int64_t ns);
  // Writes the sequence's first packet: it clears the incremental state and sets the
  // defaults and the clocks.
  void StartSequence(Thread& thread, int64_t ns);
  // Appends packet_ to out_.
  void EmitPacket();

  // The iid of `text` in `table` of the current sequence; a new one is added to the
  // packet's interned data through `add` (unless skipping).
  template <typename AddEntry>
  uint64_t Intern(InternTable& table, absl::string_view text, AddEntry add);
  uint64_t NameIid(absl::string_view name);
  uint64_t CategoryIid(absl::string_view category);
  uint64_t AnnotationIid(Arg arg);
  // Writes an event's viewer arguments (viewer_args.h) as debug annotations.
  struct ArgsWriter {
    PerfettoFormatter& f;
    void Str(Arg name, absl::string_view value) { f.StrArg(name, value); }
    void Int(Arg name, int64_t value) { f.IntArg(name, value); }
    void Uint(Arg name, uint64_t value) { f.UintArg(name, value); }
    void List(Arg name, const std::vector<absl::string_view>& list) { f.ListArg(name, list); }
    void Json(Arg name, absl::string_view json) { f.JsonArg(name, json); }
  };
  void StrArg(Arg name, absl::string_view value);
  void IntArg(Arg name, int64_t value);
  void UintArg(Arg name, uint64_t value);
  void BoolArg(Arg name, bool value);
  // The debug annotations of a task's slices: `task` (its ID) and `parent` (0: none).
  void TaskArgs(uint64_t task, uint64_t parent);
  void JsonArg(Arg name, absl::string_view json);
  template <typename List>
  void ListArg(Arg name, const List& list);
  // TrackEvent fields of the packet being built (nothing when skipping).
  void CounterValue(int64_t value) {
    if (writing()) encoder_.CounterValue(value);
  }
  void FlowId(uint64_t id) {
    if (writing()) encoder_.FlowId(id);
  }
  void TerminatingFlowId(uint64_t id) {
    if (writing()) encoder_.TerminatingFlowId(id);
  }
  void SetNameAndCategory(absl::string_view name, absl::string_view category);

  void DescribeProcess(Process& p, Thread& on);
  void DescribeThread(Thread& t, const Process& p, int64_t ns);
  Track& LaneTrack(Process& p, uint32_t lane, Thread& on, int64_t ns);
  // Takes the lowest free lane of p's tasks named `name` (a new one, described at `ns`,
  // when none is free) and returns its index.
  uint32_t TakeTaskLane(Process& p, const std::string& name, Thread& on, int64_t ns);
  uint64_t SegmentTrack(Thread& t, const Process& p, int64_t ns);
  uint64_t GaugeTrack(Process& p, Thread& on, uint32_t gauge, int64_t ns);
  uint64_t CounterTrack(Process& p, Thread& on, const std::string& name,
                        pb::CounterDescriptor::Unit unit, int64_t ns);
  // Writes p's command line (argv) as a ProcessTree entry: the trace processor's process
  // name (argv[0]) and cmdline.
  void WriteProcessTree(const Process& p, Thread& on);

  void Instant(const Event& e, Process& p, Thread& t, int64_t ns);
  void GaugeSample(const Event& e, Process& p, Thread& t, int64_t ns, uint32_t gauge);
  // Tasks: a slice on the process's task track; segments: slices on the thread's segment
  // track, joined by the task's flow.
  void BeginTask(const reader::Slice& slice, const Event& e);
  void EndTask(const reader::Slice& slice);
  void BeginSegment(const reader::Slice& slice);
  void EndSegment(const reader::Slice& slice);
  // How a written segment takes part in its task's flow.
  enum class FlowRole { kNone, kStep, kEnd };
  void WriteSegment(const HeldSegment& segment, absl::string_view name, absl::string_view category,
                    uint64_t task, FlowRole role, uint64_t flow);
  void Counter(const Event& e, Process& p, Thread& t, int64_t ns);
  void EndChild(Process& p, const reader::Slice& slice, int64_t ns, const Event* e);
  // Notes the first event of the child process of link `link` (on `thread` at `ns`): the
  // flow's end, written with the child slice.
  void ChildProcessStarted(uint32_t link, uint32_t thread, int64_t ns);
  // Writes the end of flow `link`: a "spawned" instant on `thread` at `ns`.
  void WriteFlowEnd(uint32_t link, uint32_t thread, int64_t ns);
  Flow& FlowFor(uint32_t link) {
    if (flows_.size() < link) flows_.resize(link);
    return flows_[link - 1];
  }

  // Nanoseconds of `t` since the Unix epoch, clamped to [0, kMaxNs].
  static int64_t Ns(absl::Time t) { return std::clamp(absl::ToUnixNanos(t), int64_t{0}, kMaxNs); }

  reader::TrackModel model_;
  std::string* out_ = nullptr;
  int64_t now_ns_ = 0;
  reader::EventTracks at_;
  std::vector<Process> processes_;
  std::vector<Thread> threads_;
  std::vector<RegionSlice> regions_;
  std::vector<ChildSlice> children_;
  std::vector<Flow> flows_;
  ProcessIds pids_{/*reserve_synthetic_range=*/true};  // pids fit int32
  int32_t next_synthetic_tid_ = kSyntheticTidBase;
  uint64_t next_uuid_ = 1;
  absl::flat_hash_map<std::string, uint64_t> counter_tracks_;  // "<process>|<name>" -> uuid
  std::vector<uint64_t> gauge_tracks_;  // the track model's gauge index -> uuid (0: none)
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, TaskState> tasks_;
  std::vector<SegmentSlice> segments_;  // open task segments, by slot
  std::vector<TaskSlice> task_slices_;  // open tasks, by slot
  uint64_t next_segment_serial_ = 1;
  uint64_t next_task_flow_ = kTaskFlowBase;

  Sequence* sequence_ = nullptr;  // the sequence of the packet being built
  TrackEventEncoder encoder_;     // track event packets
  pb::TracePacket packet_;        // the other packets (descriptors, the sequences' first)
  std::string scratch_;
};

}  // namespace tracewire::targets::perfetto_export

#endif  // TRACEWIRE_READER_TARGETS_PERFETTO_PERFETTO_FORMATTER_H_
