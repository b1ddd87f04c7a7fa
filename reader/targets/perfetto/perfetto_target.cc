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
#include "reader/targets/perfetto/perfetto_trace.pb.h"
#include "reader/targets/perfetto/track_event_encoder.h"
#include "reader/targets/process_ids.h"
#include "reader/targets/valid_utf8.h"
#include "reader/track_model.h"

namespace tracewire::targets {
namespace {

namespace pb = ::tracewire::perfetto;
using reader::Event;
using reader::EventKind;

constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
// Times are clamped to [0, 2^62] ns since the Unix epoch (Perfetto's times are unsigned).
constexpr int64_t kMaxNs = int64_t{1} << 62;
// tids of the threads other than main (whose tid is the pid): unique in the output.
constexpr int32_t kSyntheticTidBase = int32_t{1} << 30;
// Task flows' ids start here (the child process flows' are the track model's link ids).
constexpr uint64_t kTaskFlowBase = uint64_t{1} << 62;
// A CPU sample's weight is written as that many samples, up to this many.
constexpr uint64_t kMaxSampleWeight = 1000;
// Field number and wire type of Trace.packet: each packet is this byte, its length, itself.
constexpr char kTracePacketTag = (1 << 3) | 2;

constexpr uint32_t kStateCleared = pb::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED;
constexpr uint32_t kNeedsState = pb::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE;

// The debug annotation names the formatter writes, interned per sequence by index (no
// hashing on the hot path).
enum class Arg : uint8_t {
  kMsg,
  kRepo,
  kLeaveMsg,
  kChildId,
  kClass,
  kHook,
  kCd,
  kUseShell,
  kArgv,
  kPid,
  kCode,
  kReady,
  kExe,
  kSigno,
  kFmt,
  kPath,
  kAncestry,
  kName,
  kHierarchy,
  kAlias,
  kExecId,
  kThread,
  kScope,
  kParam,
  kValue,
  kWorktree,
  kNesting,
  kWireType,
  kBytes,
  kTask,
  kParent,
  kCount,
};
constexpr absl::string_view kArgNames[] = {
    "msg",      "repo",     "leave_msg", "child_id",  "class",   "hook",   "cd",     "use_shell",
    "argv",     "pid",      "code",      "ready",     "exe",     "signo",  "fmt",    "path",
    "ancestry", "name",     "hierarchy", "alias",     "exec_id", "thread", "scope",  "param",
    "value",    "worktree", "nesting",   "wire_type", "bytes",   "task",   "parent",
};
static_assert(std::size(kArgNames) == static_cast<size_t>(Arg::kCount));

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
  std::array<uint64_t, static_cast<size_t>(Arg::kCount)> arg_iids = {};
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

// A lane of a task name: a track for one task at a time.
struct TaskLane {
  Track track;
  bool busy = false;
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
  absl::flat_hash_map<std::string, std::vector<TaskLane>> task_lanes;
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
  void StrArg(Arg name, absl::string_view value);
  void IntArg(Arg name, int64_t value);
  void UintArg(Arg name, uint64_t value);
  void BoolArg(Arg name, bool value);
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
  // The lowest lane of tasks named `name` free at `ns` (its last slice ended before
  // `ns`), described if new; marks it busy and returns its index.
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

void PerfettoFormatter::StartSequence(Thread& thread, int64_t ns) {
  Sequence& seq = thread.sequence;
  seq.started = true;
  seq.clock_ns = ns;
  if (!writing()) return;
  packet_.Clear();
  packet_.set_trusted_packet_sequence_id(seq.id);
  packet_.set_sequence_flags(kStateCleared);
  packet_.set_first_packet_on_sequence(true);
  packet_.set_timestamp(static_cast<uint64_t>(ns));
  packet_.set_timestamp_clock_id(kPerfettoClockRealtime);
  pb::TracePacketDefaults* defaults = packet_.mutable_trace_packet_defaults();
  defaults->set_timestamp_clock_id(kPerfettoSequenceClock);
  defaults->mutable_track_event_defaults()->set_track_uuid(thread.track.uuid);
  pb::ClockSnapshot* snapshot = packet_.mutable_clock_snapshot();
  snapshot->set_primary_trace_clock(kPerfettoClockRealtime);
  pb::ClockSnapshot::Clock* realtime = snapshot->add_clocks();
  realtime->set_clock_id(kPerfettoClockRealtime);
  realtime->set_timestamp(static_cast<uint64_t>(ns));
  pb::ClockSnapshot::Clock* incremental = snapshot->add_clocks();
  incremental->set_clock_id(kPerfettoSequenceClock);
  incremental->set_timestamp(static_cast<uint64_t>(ns));
  incremental->set_is_incremental(true);
  incremental->set_unit_multiplier_ns(1);
  EmitPacket();
}

void PerfettoFormatter::StartEvent(Thread& thread, int64_t ns, pb::TrackEvent::Type type,
                                   uint64_t track_uuid) {
  Sequence& seq = thread.sequence;
  if (!seq.started) StartSequence(thread, ns);
  sequence_ = &seq;
  const int64_t delta = ns - seq.clock_ns;
  seq.clock_ns = ns;
  if (!writing()) return;
  encoder_.Begin(seq.id, kNeedsState, static_cast<uint64_t>(delta), 0);
  encoder_.Type(type);
  if (track_uuid != 0) encoder_.TrackUuid(track_uuid);
}

void PerfettoFormatter::StartAbsoluteEvent(Thread& thread, int64_t ns, pb::TrackEvent::Type type,
                                           uint64_t track_uuid) {
  Sequence& seq = thread.sequence;
  if (!seq.started) StartSequence(thread, ns);
  sequence_ = &seq;
  if (!writing()) return;
  encoder_.Begin(seq.id, kNeedsState, static_cast<uint64_t>(ns), kPerfettoClockRealtime);
  encoder_.Type(type);
  encoder_.TrackUuid(track_uuid);
}

bool PerfettoFormatter::StartDescriptor(Thread& thread, int64_t ns) {
  Sequence& seq = thread.sequence;
  if (!seq.started) StartSequence(thread, ns);
  if (!writing()) return false;
  packet_.Clear();
  packet_.set_trusted_packet_sequence_id(seq.id);
  packet_.set_sequence_flags(kNeedsState);
  packet_.set_timestamp(static_cast<uint64_t>(ns));
  packet_.set_timestamp_clock_id(kPerfettoClockRealtime);
  return true;
}

void PerfettoFormatter::EmitPacket() {
  const size_t size = packet_.ByteSizeLong();
  std::string& out = *out_;
  out.push_back(kTracePacketTag);
  AppendVarint(size, &out);
  const size_t at = out.size();
  out.resize(at + size);
  packet_.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out.data() + at));
}

template <typename AddEntry>
uint64_t PerfettoFormatter::Intern(InternTable& table, absl::string_view text, AddEntry add) {
  InternTable::Recent& recent =
      table.recent[(reinterpret_cast<uintptr_t>(text.data()) >> 3) % InternTable::kRecent];
  if (ABSL_PREDICT_TRUE(recent.iid != 0 && recent.text == text)) return recent.iid;
  uint64_t iid;
  auto it = table.ids.find(text);
  if (ABSL_PREDICT_TRUE(it != table.ids.end())) {
    iid = it->second;
  } else {
    iid = table.ids.size() + 1;
    table.ids.emplace(std::string(text), iid);
    if (writing()) add(iid, ValidUtf8(text, &scratch_));
  }
  recent.text.assign(text.data(), text.size());
  recent.iid = iid;
  return iid;
}

void PerfettoFormatter::SetNameAndCategory(absl::string_view name, absl::string_view category) {
  const uint64_t name_iid =
      Intern(sequence_->names, name,
             [this](uint64_t iid, absl::string_view text) { encoder_.InternName(iid, text); });
  if (writing()) encoder_.NameIid(name_iid);
  if (category.empty()) return;
  const uint64_t category_iid =
      Intern(sequence_->categories, category,
             [this](uint64_t iid, absl::string_view text) { encoder_.InternCategory(iid, text); });
  if (writing()) encoder_.CategoryIid(category_iid);
}

uint64_t PerfettoFormatter::AnnotationIid(Arg arg) {
  uint64_t& iid = sequence_->arg_iids[static_cast<size_t>(arg)];
  if (ABSL_PREDICT_FALSE(iid == 0)) {
    iid = ++sequence_->annotation_names;
    if (writing()) encoder_.InternAnnotationName(iid, kArgNames[static_cast<size_t>(arg)]);
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

void PerfettoFormatter::DescribeProcess(Process& p, Thread& on) {
  p.described = true;
  if (!StartDescriptor(on, std::max<int64_t>(now_ns_, 0))) return;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(p.uuid);
  // No process_name: the trace processor keeps the first name it sees, and the name is
  // the command line's (WriteProcessTree), known once the start event has come.
  d->mutable_process()->set_pid(p.pid);
  EmitPacket();
}

void PerfettoFormatter::WriteProcessTree(const Process& p, Thread& on) {
  if (!StartDescriptor(on, std::max<int64_t>(now_ns_, 0))) return;
  pb::ProcessTree::Process* process = packet_.mutable_process_tree()->add_processes();
  process->set_pid(p.pid);
  if (p.ppid != 0) process->set_ppid(p.ppid);
  for (const std::string& arg : p.argv) process->add_cmdline(arg);
  EmitPacket();
}

void PerfettoFormatter::DescribeThread(Thread& t, const Process& p, int64_t ns) {
  if (!StartDescriptor(t, ns)) return;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(t.track.uuid);
  d->set_parent_uuid(p.uuid);
  pb::ThreadDescriptor* thread = d->mutable_thread();
  thread->set_pid(p.pid);
  thread->set_tid(t.tid);
  thread->set_thread_name(t.name);
  EmitPacket();
}

Track& PerfettoFormatter::LaneTrack(Process& p, uint32_t lane, Thread& on, int64_t ns) {
  if (lane < p.lanes.size()) return p.lanes[lane];
  const size_t index = p.lanes.size();  // lanes are taken lowest free first
  Track& track = p.lanes.emplace_back();
  track.uuid = next_uuid_++;
  if (!StartDescriptor(on, ns)) return track;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(track.uuid);
  d->set_parent_uuid(p.uuid);
  d->set_name(index == 0 ? std::string("children") : absl::StrCat("children ", index + 1));
  EmitPacket();
  return track;
}

uint64_t PerfettoFormatter::CounterTrack(Process& p, Thread& on, const std::string& name,
                                         pb::CounterDescriptor::Unit unit, int64_t ns) {
  const std::string key = absl::StrCat(p.uuid, "|", name);
  auto it = counter_tracks_.find(key);
  if (it != counter_tracks_.end()) return it->second;
  const uint64_t uuid = next_uuid_++;
  counter_tracks_.emplace(key, uuid);
  if (!StartDescriptor(on, ns)) return uuid;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(uuid);
  d->set_parent_uuid(p.uuid);
  d->set_name(std::string(ValidUtf8(name, &scratch_)));
  d->mutable_counter()->set_unit(unit);
  EmitPacket();
  return uuid;
}

uint32_t PerfettoFormatter::TakeTaskLane(Process& p, const std::string& name, Thread& on,
                                         int64_t ns) {
  std::vector<TaskLane>& lanes = p.task_lanes[name];
  uint32_t index = 0;
  while (index < lanes.size() && (lanes[index].busy || lanes[index].track.last_ns >= ns)) ++index;
  if (index == lanes.size()) {
    TaskLane& lane = lanes.emplace_back();
    lane.track.uuid = next_uuid_++;
    if (StartDescriptor(on, ns)) {
      pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
      d->set_uuid(lane.track.uuid);
      d->set_parent_uuid(p.uuid);
      d->set_name(name);
      EmitPacket();
    }
  }
  lanes[index].busy = true;
  return index;
}

uint64_t PerfettoFormatter::SegmentTrack(Thread& t, const Process& p, int64_t ns) {
  if (t.segment_track != 0) return t.segment_track;
  t.segment_track = next_uuid_++;
  if (!StartDescriptor(t, ns)) return t.segment_track;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(t.segment_track);
  d->set_parent_uuid(t.track.uuid);  // shown with the thread
  d->set_name(absl::StrCat(t.name, " tasks"));
  EmitPacket();
  return t.segment_track;
}

uint64_t PerfettoFormatter::GaugeTrack(Process& p, Thread& on, uint32_t gauge, int64_t ns) {
  if (gauge_tracks_.size() <= gauge) gauge_tracks_.resize(gauge + 1, 0);
  if (gauge_tracks_[gauge] != 0) return gauge_tracks_[gauge];
  const reader::GaugeTrack& g = model_.gauges()[gauge];
  const uint64_t uuid = next_uuid_++;
  gauge_tracks_[gauge] = uuid;
  if (!StartDescriptor(on, ns)) return uuid;
  // The name as the Chrome export's series: "category/name (unit)"; CounterDescriptor's
  // unit enum where the unit is one it has.
  std::string name = absl::StrCat(g.category, "/", g.name);
  if (!g.unit.empty()) absl::StrAppend(&name, " (", g.unit, ")");
  pb::CounterDescriptor::Unit unit = pb::CounterDescriptor::UNIT_UNSPECIFIED;
  if (g.unit == "ns") {
    unit = pb::CounterDescriptor::UNIT_TIME_NS;
  } else if (g.unit == "bytes" || g.unit == "B") {
    unit = pb::CounterDescriptor::UNIT_SIZE_BYTES;
  } else if (g.unit.empty() || g.unit == "count") {
    unit = pb::CounterDescriptor::UNIT_COUNT;
  }
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(uuid);
  d->set_parent_uuid(p.uuid);
  d->set_name(std::string(ValidUtf8(name, &scratch_)));
  pb::CounterDescriptor* counter = d->mutable_counter();
  counter->set_unit(unit);
  if (!g.category.empty()) counter->add_categories(std::string(ValidUtf8(g.category, &scratch_)));
  EmitPacket();
  return uuid;
}

void PerfettoFormatter::GaugeSample(const Event& e, Process& p, Thread& t, int64_t ns,
                                    uint32_t gauge) {
  const int64_t ts = Tick(t.track, ns);
  const uint64_t uuid = GaugeTrack(p, t, gauge, ts);
  StartEvent(t, ts, pb::TrackEvent::TYPE_COUNTER, uuid);
  CounterValue(e.value_int);
  EndEvent();
}

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
  Track& lane = p.task_lanes[task.name][open.lane].track;
  lane.last_ns = ts;
  StartEvent(t, ts, pb::TrackEvent::TYPE_SLICE_BEGIN, lane.uuid);
  SetNameAndCategory(task.name, task.category);
  UintArg(Arg::kTask, slice.id);
  if (slice.task != 0) UintArg(Arg::kParent, slice.task);
  EndEvent();
}

void PerfettoFormatter::EndTask(const reader::Slice& slice) {
  Process& p = processes_[slice.process];
  Thread& t = threads_[slice.thread];
  const int64_t ts = Tick(t.track, now_ns_);
  const TaskSlice& open = task_slices_[slice.slot];
  TaskLane& task_lane = p.task_lanes[open.name][open.lane];
  task_lane.busy = false;
  Track& lane = task_lane.track;
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
  UintArg(Arg::kTask, task);
  if (role == FlowRole::kStep) FlowId(flow);
  if (role == FlowRole::kEnd) TerminatingFlowId(flow);
  EndEvent();
  StartAbsoluteEvent(t, segment.end_ns, pb::TrackEvent::TYPE_SLICE_END, track);
  EndEvent();
}

void PerfettoFormatter::OnSample(const Event& e, const reader::SampleContext& at) {
  if (at.thread >= threads_.size() || threads_[at.thread].sequence.id == 0) return;
  Thread& t = threads_[at.thread];
  const Process& p = processes_[t.process];
  // The interning tables are updated when skipping too; `interned` is null then.
  const bool write = StartDescriptor(t, now_ns_);
  Sequence& seq = t.sequence;
  pb::InternedData* interned = write ? packet_.mutable_interned_data() : nullptr;
  std::string frames_key;
  // Outermost frame first (Perfetto's "bottom frame first").
  for (auto frame = e.stack.rbegin(); frame != e.stack.rend(); ++frame) {
    std::string function = frame->func.empty() ? absl::StrCat("0x", absl::Hex(frame->pc))
                                               : std::string(ValidUtf8(frame->func, &scratch_));
    auto [fn, new_function] = seq.functions.try_emplace(function, seq.functions.size() + 1);
    if (new_function && write) {
      pb::InternedString* entry = interned->add_function_names();
      entry->set_iid(fn->second);
      entry->set_str(function);
    }
    // The frame's module: a mapping whose path is interned by its components.
    uint64_t mapping = 0;
    if (!frame->module.empty()) {
      const std::string module(ValidUtf8(frame->module, &scratch_));
      auto [m, new_mapping] = seq.mappings.try_emplace(module, seq.mappings.size() + 1);
      if (new_mapping) {
        pb::Mapping* entry = write ? interned->add_mappings() : nullptr;
        if (write) entry->set_iid(m->second);
        for (absl::string_view part : absl::StrSplit(module, '/', absl::SkipEmpty())) {
          auto [c, new_part] =
              seq.mapping_paths.try_emplace(std::string(part), seq.mapping_paths.size() + 1);
          if (!write) continue;
          if (new_part) {
            pb::InternedString* path = interned->add_mapping_paths();
            path->set_iid(c->second);
            path->set_str(std::string(part));
          }
          entry->add_path_string_ids(c->second);
        }
      }
      mapping = m->second;
    }
    const uint64_t rel_pc = mapping == 0 ? frame->pc : frame->module_offset;
    auto [fr, new_frame] = seq.frames.try_emplace(
        absl::StrCat(fn->second, ":", mapping, ":", rel_pc), seq.frames.size() + 1);
    if (new_frame && write) {
      pb::Frame* entry = interned->add_frames();
      entry->set_iid(fr->second);
      entry->set_function_name_id(fn->second);
      if (mapping != 0) {
        entry->set_mapping_id(mapping);
        entry->set_rel_pc(rel_pc);
      }
    }
    absl::StrAppend(&frames_key, fr->second, ",");
  }
  auto [cs, new_callstack] = seq.callstacks.try_emplace(frames_key, seq.callstacks.size() + 1);
  if (!write) return;
  if (new_callstack) {
    pb::Callstack* entry = interned->add_callstacks();
    entry->set_iid(cs->second);
    for (absl::string_view id : absl::StrSplit(frames_key, ',', absl::SkipEmpty())) {
      uint64_t value = 0;
      if (absl::SimpleAtoi(id, &value)) entry->add_frame_ids(value);
    }
  }
  if (interned->ByteSizeLong() == 0) packet_.clear_interned_data();
  pb::PerfSample* sample = packet_.mutable_perf_sample();
  sample->set_pid(static_cast<uint32_t>(p.pid));
  sample->set_tid(static_cast<uint32_t>(t.tid));
  sample->set_callstack_iid(cs->second);
  // PerfSample has no weight: a sample of weight w (the periods of CPU time it stands for)
  // is w packets at its time, the later ones without the interned data.
  EmitPacket();
  packet_.clear_interned_data();
  const uint64_t copies = std::min<uint64_t>(std::max<uint64_t>(e.count, 1), kMaxSampleWeight);
  for (uint64_t copy = 1; copy < copies; ++copy) EmitPacket();
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
      t.tid = e.thread_id == 0 ? p.pid : next_synthetic_tid_++;
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
  absl::string_view name;  // the kind's name unless set below
  absl::string_view cat = IsProcessLifeEvent(e.kind) ? "process" : "trace2";
  uint64_t track = 0;  // the thread's (the sequence's default)
  switch (e.kind) {
    case EventKind::kData:
    case EventKind::kDataJson:
      name = e.label;
      cat = e.category;
      break;
    case EventKind::kPrintf:
      cat = "printf";
      break;
    case EventKind::kError:
      cat = "error";
      track = p.uuid;  // process scope
      break;
    default:
      break;
  }
  if (name.empty()) name = reader::EventKindName(e.kind);
  StartEvent(t, Tick(t.track, ns), pb::TrackEvent::TYPE_INSTANT, track);
  SetNameAndCategory(name, cat);
  switch (e.kind) {
    case EventKind::kVersion:
      StrArg(Arg::kExe, e.exe);
      break;
    case EventKind::kStart:
      ListArg(Arg::kArgv, e.argv);
      break;
    case EventKind::kExit:
    case EventKind::kAtexit:
      IntArg(Arg::kCode, e.code);
      break;
    case EventKind::kSignal:
      UintArg(Arg::kSigno, e.signo);
      break;
    case EventKind::kError:
      if (e.msg.has_value()) StrArg(Arg::kMsg, *e.msg);
      if (e.fmt.has_value()) StrArg(Arg::kFmt, *e.fmt);
      break;
    case EventKind::kPrintf:
      if (e.msg.has_value()) StrArg(Arg::kMsg, *e.msg);
      break;
    case EventKind::kCmdPath:
      StrArg(Arg::kPath, e.cmd_path);
      break;
    case EventKind::kCmdAncestry:
      ListArg(Arg::kAncestry, e.ancestry);
      break;
    case EventKind::kCmdName:
      StrArg(Arg::kName, e.cmd_name);
      if (e.cmd_hierarchy.has_value()) StrArg(Arg::kHierarchy, *e.cmd_hierarchy);
      break;
    case EventKind::kCmdMode:
      StrArg(Arg::kName, e.cmd_mode);
      break;
    case EventKind::kAlias:
      StrArg(Arg::kAlias, e.alias);
      ListArg(Arg::kArgv, e.argv);
      break;
    case EventKind::kChildExit:
    case EventKind::kChildReady:
      UintArg(Arg::kChildId, e.child_id);
      IntArg(Arg::kPid, e.pid);
      if (e.kind == EventKind::kChildExit) {
        IntArg(Arg::kCode, e.code);
      } else {
        StrArg(Arg::kReady, e.ready);
      }
      break;
    case EventKind::kExec:
      UintArg(Arg::kExecId, e.exec_id);
      if (e.exec_exe.has_value()) StrArg(Arg::kExe, *e.exec_exe);
      ListArg(Arg::kArgv, e.argv);
      break;
    case EventKind::kExecResult:
      UintArg(Arg::kExecId, e.exec_id);
      IntArg(Arg::kCode, e.code);
      break;
    case EventKind::kThreadStart:
    case EventKind::kThreadExit:
      StrArg(Arg::kThread, e.thread_name);
      break;
    case EventKind::kDefParam:
      StrArg(Arg::kScope, e.param_scope);
      StrArg(Arg::kParam, e.param);
      if (e.param_value.has_value()) StrArg(Arg::kValue, *e.param_value);
      break;
    case EventKind::kDefRepo:
      if (e.repo.has_value()) IntArg(Arg::kRepo, *e.repo);
      StrArg(Arg::kWorktree, e.worktree);
      break;
    case EventKind::kData:
    case EventKind::kDataJson:
      if (e.value_kind == reader::ValueKind::kInt) {
        IntArg(Arg::kValue, e.value_int);
      } else if (e.value_kind == reader::ValueKind::kJson && IsJsonText(e.value_string)) {
        JsonArg(Arg::kValue, e.value_string);
      } else {
        StrArg(Arg::kValue, e.value_string);
      }
      IntArg(Arg::kNesting, e.nesting);
      if (e.repo.has_value()) IntArg(Arg::kRepo, *e.repo);
      break;
    case EventKind::kExperimental:
      IntArg(Arg::kWireType, e.wire_type);
      IntArg(Arg::kBytes, static_cast<int64_t>(e.experimental_data.size()));
      break;
    default:
      break;
  }
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
    default:
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

}  // namespace

std::unique_ptr<Formatter> MakePerfettoFormatter(const FormatterOptions& options) {
  return std::make_unique<PerfettoFormatter>();
}

}  // namespace tracewire::targets
