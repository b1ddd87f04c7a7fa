// TrackModel: the tracks and slices of a stream of reader events, kept in one place for every
// consumer (the Chrome and OTLP exporters, `tracewire report`, `tracewire stats`), as
// Perfetto's SliceTracker serves all its importers.
//
// Tracks: one per process (by sid, in order of appearance) and one per thread of a process
// (by thread number). Slices, each open from a begin to an end:
//   * regions (region_enter -> region_leave), on their thread's track, nested: a region's
//     depth is the number of open regions around it and its parent the innermost of them.
//     The model follows the reader's Event::nesting: before each event, the thread's open
//     regions whose nesting is >= the event's (> for region_leave) end, unwound (this is
//     how the regions git unwinds on atexit, thread_exit, timers and counters end there);
//     a region_leave then ends the innermost open region if its nesting is the leave's,
//     and otherwise ends nothing (its enter came before the output started: no slice);
//   * child processes (child_start -> child_exit or child_ready), on their process's
//     children track, each on the lowest lane free when it starts (so that overlapping
//     children still nest), found again by child_id;
//   * execs (exec -> exec_result), found by exec_id;
//   * thread lifetimes: from the thread's first event (its thread_start when the output
//     holds it) to its thread_exit; the main thread's (thread number 0) to atexit or signal;
//   * tasks (task_begin -> task_end), on their process's task track, each on the lowest
//     lane free when it begins (like children), found again by task ID; its parent is the
//     slot of its parent task when that one is open. A task_end whose task_begin came before
//     the output ends nothing;
//   * task segments (task_adopt -> task_release, the thread's next task_adopt, or its end),
//     on the thread's track: the stretch in which the thread works for the task (`id`).
// Regions carry the task their thread worked for when they began (Slice::task, from
// Event::adopted_task): that is how regions on worker threads belong to a task.
// Gauges: one gauge track per (process, category, name), numbered from 0 in order of
// appearance; OnEvent of a gauge sample names it (EventTracks::gauge).
// A child_start or exec whose id is already open starts nothing (the reader rejects both).
// Slices still open when their process or the input ends are ended by the consumer:
// EndProcess(), EndChildren(), EndThreadRegions() or Finish().
//
// Child links: the slice of a child process and the child process's own track meet in a
// link, known by the parent's sid and the child's pid. A child slice that ends with a
// pid > 0 touches the link (parent sid, pid); so does a process whose first event is
// version or start, whose sid has a parent ("<parent sid>/<own>") and whose own sid
// component names a pid > 0. Links are numbered from 1 in the order of their first touch.
//
// Delivery: Add() reports to a listener, a template parameter (calls are static and
// inlined: the model runs at the reader's rate, tens of millions of events per second).
// Listeners derive from TrackListener, whose members do nothing, and hide those they need:
//   OnProcessBegin(const ProcessTrack&, const Event& first)  a new process, before anything
//                                                             else of its first event;
//   OnSliceBegin(const Slice&, const Event&)                 a slice began at the event;
//   OnSliceEnd(const Slice&, const SliceEnding&)              a slice ended;
//   OnEvent(const Event&, const EventTracks&)                 the event itself;
//   OnSample(const Event&, const SampleContext&)              a CPU sample (cpu_sample),
//                                                             before its OnEvent, with the
//                                                             regions open on its thread
//                                                             and the task it works for.
// For each event, in this order: OnProcessBegin (new process); OnSliceBegin of the thread's
// lifetime (new thread); OnSliceEnd of the unwound regions, innermost first; the event's own
// OnSliceBegin or OnSliceEnd; OnEvent; then the ends that follow the event (thread_exit:
// the thread's lifetime; atexit and signal on the main thread: its lifetime).
// Per-slice consumer data is cheap: every open slice has a `slot`, a small integer unique
// among the open slices and reused after the slice ends (most recently freed first), so a
// consumer keeps its data in a vector indexed by slot. Processes and threads have dense
// indices too. Listeners must not call the model from a callback.
#ifndef TRACEWIRE_READER_TRACK_MODEL_H_
#define TRACEWIRE_READER_TRACK_MODEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "reader/event.h"

namespace tracewire::reader {

// "None" for slot, parent, process and link indices.
inline constexpr uint32_t kNoIndex = ~uint32_t{0};

// What a slice stands for.
enum class SliceKind : uint8_t {
  kThread,       // a thread's lifetime
  kRegion,       // region_enter -> region_leave
  kChild,        // child_start -> child_exit / child_ready
  kExec,         // exec -> exec_result
  kTask,         // task_begin -> task_end
  kTaskSegment,  // task_adopt -> task_release (a thread working for a task)
};

// An open (or just ended) slice.
struct Slice {
  SliceKind kind = SliceKind::kRegion;
  // Consumer data index: unique among open slices, reused after this one has ended.
  uint32_t slot = kNoIndex;
  uint32_t process = 0;  // index of its process (ProcessTrack::index)
  uint32_t thread = 0;   // index of the thread whose event began it
  // Regions: slot of the enclosing open region on the thread, kNoIndex if outermost.
  // Other kinds: kNoIndex.
  uint32_t parent = kNoIndex;
  // Regions: number of enclosing open regions (0 = outermost). Children: the lane of the
  // process's children track. Others: 0.
  uint32_t depth = 0;
  int nesting = 0;  // regions: Event::nesting of the region_enter
  // child_id (children), exec_id (execs), thread number (thread lifetimes), 0 (regions),
  // task ID (tasks and task segments).
  uint64_t id = 0;
  // Children that ended with a pid > 0: their link (see above), else kNoIndex.
  uint32_t link = kNoIndex;
  absl::Time begin;  // time of the event that began it
  // Regions: the task the thread worked for when it began (0: none). Tasks: the parent
  // task's ID (0: none).
  uint64_t task = 0;
};

// Why a slice ended.
enum class SliceEnd : uint8_t {
  kEndEvent,    // its own end event (region_leave, child_exit, child_ready, exec_result,
                // thread_exit; atexit or signal for the main thread's lifetime)
  kUnwound,     // a region git unwound: an event of lower nesting on its thread
  kProcessEnd,  // ended by EndProcess(), EndChildren() or EndThreadRegions()
  kFinish,      // still open at Finish()
};

// How a slice ended: the cause, the event that ended it (kEndEvent, kUnwound; else null)
// and the end time (that event's time, or the time passed to the End* call).
struct SliceEnding {
  SliceEnd cause = SliceEnd::kEndEvent;
  const Event* event = nullptr;
  absl::Time time;
};

// A process's track, and the state of its children and execs.
struct ProcessTrack {
  std::string sid;                       // its session id (Event::sid)
  uint32_t index = 0;                    // in order of appearance
  int depth = 0;                         // Event::depth of its events
  absl::Time first_time;                 // time of its first event
  absl::Time last_time;                  // latest time of its events
  std::map<uint64_t, uint32_t> threads;  // thread number -> thread index
  // The same for the thread numbers below kDirectThreads (kNoIndex: none yet), so that the
  // usual small thread numbers need no search.
  std::vector<uint32_t> direct_threads;
  std::vector<Slice> lanes;  // children track: lane -> child (slot kNoIndex: free)
  absl::flat_hash_map<uint64_t, uint32_t> child_lanes;  // open child_id -> lane
  std::vector<Slice> execs;                             // open execs, in start order
  std::vector<Slice> task_lanes;  // task track: lane -> task (slot kNoIndex: free)
  absl::flat_hash_map<uint64_t, uint32_t> task_lane_of;  // open task ID -> lane
  // Its gauges: "category\0name" -> gauge track index.
  absl::flat_hash_map<std::string, uint32_t> gauges;
};

// A gauge's track: the samples of one (process, category, name).
struct GaugeTrack {
  uint32_t process = 0;
  std::string category;
  std::string name;
  std::string unit;  // of its first sample
};

// A thread's track, and its open regions.
struct ThreadTrack {
  uint32_t process = 0;        // its process's index
  uint64_t thread_id = 0;      // the trace's thread number (main = 0)
  std::string name;            // the thread name of its first event
  uint64_t tid = 0;            // the kernel thread id of its first event (0: not recorded)
  Slice lifetime;              // slot kNoIndex once ended (and for FindOrAddThread's)
  std::vector<Slice> regions;  // open regions, outermost first
  Slice segment;               // the open task segment (slot kNoIndex: none)
};

// A child link (see above): its ends as far as the input showed them.
struct ChildLink {
  uint32_t parent_process = kNoIndex;  // process whose child slice ended with the pid
  uint32_t child_process = kNoIndex;   // process with that parent sid and pid
};

// What OnEvent learns of its event's place.
struct EventTracks {
  uint32_t process = 0;           // index of the event's process
  uint32_t thread = 0;            // index of the event's thread
  bool first_of_process = false;  // the first event of its process
  bool slice_began = false;       // the event began a slice (not the thread's lifetime)
  bool slice_ended = false;       // the event ended a slice by its own end (not unwinding)
  // The first event of a child process (version or start): its link, else kNoIndex.
  uint32_t parent_link = kNoIndex;
  uint32_t gauge = kNoIndex;  // a gauge sample: its gauge track
};

// Where a CPU sample falls: its process and thread, and the regions open on the thread
// when it was taken, outermost first (valid during the OnSample call).
struct SampleContext {
  uint32_t process = 0;
  uint32_t thread = 0;
  absl::Span<const Slice> regions;
  uint64_t task = 0;  // the task the thread worked for (task_adopt), 0 for none
};

// A listener whose callbacks do nothing; derive and hide the ones needed (see above for
// when each is called).
struct TrackListener {
  void OnProcessBegin(const ProcessTrack& process, const Event& first) {}
  void OnSliceBegin(const Slice& slice, const Event& e) {}
  void OnSliceEnd(const Slice& slice, const SliceEnding& end) {}
  void OnEvent(const Event& e, const EventTracks& at) {}
  void OnSample(const Event& sample, const SampleContext& at) {}
};

// The model itself: feed it every event with Add(), end what is left with the End* calls
// or Finish(). Not thread-safe; movable, and a new (or moved-from and reassigned) model
// is empty.
class TrackModel {
 public:
  // Adds one event (in reader order) and reports what it does to `listener`.
  template <typename Listener>
  void Add(const Event& e, Listener& listener);

  // Ends the open children of process `process` (lane order) at `time`, cause kProcessEnd
  // (or `cause`).
  template <typename Listener>
  void EndChildren(uint32_t process, absl::Time time, Listener& listener,
                   SliceEnd cause = SliceEnd::kProcessEnd);
  // Ends the open regions of thread `thread`, innermost first.
  template <typename Listener>
  void EndThreadRegions(uint32_t thread, absl::Time time, Listener& listener,
                        SliceEnd cause = SliceEnd::kProcessEnd);
  // Ends the innermost open region of thread `thread`; false if none is open.
  template <typename Listener>
  bool EndInnermostRegion(uint32_t thread, absl::Time time, Listener& listener,
                          SliceEnd cause = SliceEnd::kProcessEnd);
  // Ends every open slice of process `process`: the regions of each thread (by thread
  // number, innermost first), the children (lane order), the execs (start order), the task
  // segments and the tasks (lane order), the thread lifetimes (by thread number).
  template <typename Listener>
  void EndProcess(uint32_t process, absl::Time time, Listener& listener,
                  SliceEnd cause = SliceEnd::kProcessEnd);
  // Ends every open slice, process by process in order of appearance (as EndProcess), at
  // each process's last time, cause kFinish.
  template <typename Listener>
  void Finish(Listener& listener);

  // Opens a region on thread `thread` (for consumers that replay partial results; Add()
  // opens regions from events) and returns it.
  Slice& BeginRegion(uint32_t thread, int nesting, absl::Time time) {
    ThreadTrack& t = threads_[thread];
    const uint32_t parent = t.regions.empty() ? kNoIndex : t.regions.back().slot;
    const uint32_t depth = static_cast<uint32_t>(t.regions.size());
    return t.regions.emplace_back(Slice{SliceKind::kRegion, NewSlot(), t.process, thread, parent,
                                        depth, nesting, 0, kNoIndex, time});
  }

  // The thread of (sid, thread number), created (with no lifetime slice) if new; creates
  // its process too if new (with no OnProcessBegin: for replays).
  uint32_t FindOrAddThread(absl::string_view sid, uint64_t thread_id);
  // The index of the process with `sid`, if seen.
  std::optional<uint32_t> FindProcess(absl::string_view sid) const;

  // Every process and thread so far, by index (order of appearance).
  const std::vector<ProcessTrack>& processes() const { return processes_; }
  const std::vector<ThreadTrack>& threads() const { return threads_; }
  // Every gauge track so far, by index.
  const std::vector<GaugeTrack>& gauges() const { return gauges_; }
  // Process and thread `index`.
  const ProcessTrack& process(uint32_t index) const { return processes_[index]; }
  const ThreadTrack& thread(uint32_t index) const { return threads_[index]; }
  // Open regions of a thread, outermost first (what OnSample reports for a CPU sample).
  absl::Span<const Slice> OpenRegions(uint32_t thread) const { return threads_[thread].regions; }
  // Link `id` (from 1), as far as the input has shown it.
  const ChildLink& link(uint32_t id) const { return links_[id - 1]; }
  // Slots in use or free: every slot handed out so far is below this.
  uint32_t slot_limit() const { return slot_limit_; }

 private:
  // Thread numbers below this are found by index (ProcessTrack::direct_threads).
  static constexpr uint64_t kDirectThreads = 4096;

  // The process of `e`, found (and cached as the last one) or created (`*created` tells).
  uint32_t FindOrAddProcess(const Event& e, bool* created);
  // The thread of `e` in `process`, found or created (`*created` tells).
  uint32_t FindOrAddThread(uint32_t process, const Event& e, bool* created);
  // The thread (sid, thread number), created if new (with no lifetime when `e` is null).
  uint32_t FindOrAddThread(uint32_t process, uint64_t thread_id, const Event* e);
  uint32_t NewSlot() {
    if (!free_slots_.empty()) {
      const uint32_t slot = free_slots_.back();
      free_slots_.pop_back();
      return slot;
    }
    return slot_limit_++;
  }
  void FreeSlot(uint32_t slot) { free_slots_.push_back(slot); }
  // The link of (parent sid, pid), touched (created if new).
  uint32_t TouchLink(absl::string_view parent_sid, int64_t pid);
  // The lane a new child takes in `process`.
  uint32_t FreeLane(ProcessTrack& process);
  // Links of `e` as the first event of its process (see above); kNoIndex if none.
  uint32_t ParentLinkOf(uint32_t process, const Event& e);

  // The gauge track of a gauge sample (created if new).
  uint32_t FindOrAddGauge(uint32_t process, const Event& e);
  // Add()'s part for tasks and gauges.
  template <typename Listener>
  void AddTaskSlice(const Event& e, uint32_t p, uint32_t t, EventTracks* at, Listener& listener);
  template <typename Listener>
  void EndSegment(ThreadTrack& thread, const SliceEnding& end, Listener& listener) {
    if (thread.segment.slot == kNoIndex) return;
    const Slice slice = thread.segment;
    thread.segment.slot = kNoIndex;
    EndSlice(slice, end, listener);
  }
  template <typename Listener>
  void EndTask(ProcessTrack& process, uint32_t lane, const SliceEnding& end, Listener& listener) {
    const Slice slice = process.task_lanes[lane];
    process.task_lanes[lane].slot = kNoIndex;
    process.task_lane_of.erase(slice.id);
    EndSlice(slice, end, listener);
  }
  // Add()'s part for child_start, child_exit, child_ready, exec and exec_result.
  template <typename Listener>
  void AddProcessSlice(const Event& e, uint32_t p, uint32_t t, EventTracks* at, Listener& listener);
  template <typename Listener>
  void EndSlice(const Slice& slice, const SliceEnding& end, Listener& listener) {
    listener.OnSliceEnd(slice, end);
    FreeSlot(slice.slot);
  }
  template <typename Listener>
  void PopRegion(ThreadTrack& thread, const SliceEnding& end, Listener& listener) {
    const Slice slice = thread.regions.back();
    thread.regions.pop_back();
    EndSlice(slice, end, listener);
  }
  template <typename Listener>
  void EndChild(ProcessTrack& process, uint32_t lane, const SliceEnding& end, Listener& listener) {
    Slice slice = process.lanes[lane];
    process.lanes[lane].slot = kNoIndex;
    process.child_lanes.erase(slice.id);
    if (end.event != nullptr && end.event->pid > 0)
      slice.link = TouchLink(process.sid, end.event->pid);
    if (slice.link != kNoIndex) links_[slice.link - 1].parent_process = process.index;
    EndSlice(slice, end, listener);
  }
  template <typename Listener>
  void EndLifetime(ThreadTrack& thread, const SliceEnding& end, Listener& listener) {
    if (thread.lifetime.slot == kNoIndex) return;
    const Slice slice = thread.lifetime;
    thread.lifetime.slot = kNoIndex;
    EndSlice(slice, end, listener);
  }

  std::vector<ProcessTrack> processes_;
  absl::flat_hash_map<std::string, uint32_t> process_by_sid_;
  uint32_t last_process_ = kNoIndex;
  std::vector<ThreadTrack> threads_;
  std::vector<uint32_t> free_slots_;
  uint32_t slot_limit_ = 0;
  std::vector<ChildLink> links_;
  std::vector<GaugeTrack> gauges_;
  absl::flat_hash_map<std::pair<std::string, int64_t>, uint32_t> link_ids_;
};

// ---- Implementation of the templates. ----

// The switch over the kinds names every kind: a new one fails the build until it is placed.
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
template <typename Listener>
void TrackModel::Add(const Event& e, Listener& listener) {
  // The usual case, the process of the previous event and a small thread number, takes a
  // comparison and two indexing steps (the indices are the model's own: unchecked).
  bool new_process = false;
  uint32_t p = last_process_;
  if (ABSL_PREDICT_FALSE(p == kNoIndex || processes_.data()[p].sid != e.sid)) {
    p = FindOrAddProcess(e, &new_process);
    if (new_process) listener.OnProcessBegin(processes_[p], e);
  }
  ProcessTrack& process = processes_.data()[p];  // FindOrAddThread() keeps it in place
  bool new_thread = false;
  uint32_t t = e.thread_id < process.direct_threads.size()
                   ? process.direct_threads.data()[e.thread_id]
                   : kNoIndex;
  if (ABSL_PREDICT_FALSE(t == kNoIndex)) t = FindOrAddThread(p, e, &new_thread);
  ThreadTrack& thread = threads_.data()[t];
  if (new_thread) listener.OnSliceBegin(thread.lifetime, e);
  if (e.time > process.last_time) process.last_time = e.time;

  // Follow the reader's nesting: end the regions git unwound (for region_leave, stop above
  // the region being left).
  const int keep_below = e.nesting + (e.kind == EventKind::kRegionLeave ? 1 : 0);
  while (!thread.regions.empty() && thread.regions.back().nesting >= keep_below) {
    PopRegion(thread, SliceEnding{SliceEnd::kUnwound, &e, e.time}, listener);
  }

  EventTracks at;
  at.process = p;
  at.thread = t;
  at.first_of_process = new_process;
  bool ends_lifetime = false;
  switch (e.kind) {
    case EventKind::kRegionEnter: {
      Slice& region = BeginRegion(t, e.nesting, e.time);
      region.task = e.adopted_task;
      listener.OnSliceBegin(region, e);
      at.slice_began = true;
      break;
    }
    case EventKind::kRegionLeave:
      if (!thread.regions.empty() && thread.regions.back().nesting == e.nesting) {
        PopRegion(thread, SliceEnding{SliceEnd::kEndEvent, &e, e.time}, listener);
        at.slice_ended = true;
      }
      break;
    case EventKind::kChildStart:
    case EventKind::kChildExit:
    case EventKind::kChildReady:
    case EventKind::kExec:
    case EventKind::kExecResult:
      AddProcessSlice(e, p, t, &at, listener);
      break;
    case EventKind::kTaskBegin:
    case EventKind::kTaskEnd:
    case EventKind::kTaskAdopt:
    case EventKind::kTaskRelease:
    case EventKind::kGauge:
      AddTaskSlice(e, p, t, &at, listener);
      break;
    case EventKind::kVersion:
    case EventKind::kStart:
      if (new_process) at.parent_link = ParentLinkOf(p, e);
      break;
    case EventKind::kThreadExit:
      ends_lifetime = true;
      break;
    case EventKind::kAtexit:
    case EventKind::kSignal:
      ends_lifetime = e.thread_id == 0;  // the main thread ends with its process
      break;
    case EventKind::kCpuSample:
      listener.OnSample(e, SampleContext{p, t, thread.regions, e.adopted_task});
      break;
    case EventKind::kTooManyFiles:
    case EventKind::kExit:
    case EventKind::kError:
    case EventKind::kCmdPath:
    case EventKind::kCmdAncestry:
    case EventKind::kCmdName:
    case EventKind::kCmdMode:
    case EventKind::kAlias:
    case EventKind::kThreadStart:
    case EventKind::kDefParam:
    case EventKind::kDefRepo:
    case EventKind::kData:
    case EventKind::kDataJson:
    case EventKind::kPrintf:
    case EventKind::kThTimer:
    case EventKind::kTimer:
    case EventKind::kThCounter:
    case EventKind::kCounter:
    case EventKind::kCpuSamplesLost:
    case EventKind::kExperimental:
      break;
  }
  listener.OnEvent(e, at);
  if (ABSL_PREDICT_FALSE(ends_lifetime)) {
    // A thread that ends stops working for its task.
    EndSegment(threads_[t], SliceEnding{SliceEnd::kEndEvent, &e, e.time}, listener);
    EndLifetime(threads_[t], SliceEnding{SliceEnd::kEndEvent, &e, e.time}, listener);
  }
}
#pragma GCC diagnostic pop

// Tasks, task segments and gauges, out of Add()'s way.
template <typename Listener>
ABSL_ATTRIBUTE_NOINLINE void TrackModel::AddTaskSlice(const Event& e, uint32_t p, uint32_t t,
                                                      EventTracks* at, Listener& listener) {
  ProcessTrack& process = processes_[p];
  ThreadTrack& thread = threads_[t];
  const SliceEnding ending{SliceEnd::kEndEvent, &e, e.time};
  switch (e.kind) {
    case EventKind::kTaskBegin: {
      if (process.task_lane_of.contains(e.task_id)) break;
      uint32_t lane = 0;
      while (lane < process.task_lanes.size() && process.task_lanes[lane].slot != kNoIndex) ++lane;
      if (lane == process.task_lanes.size()) process.task_lanes.emplace_back();
      uint32_t parent = kNoIndex;
      if (auto it = process.task_lane_of.find(e.parent_task); it != process.task_lane_of.end()) {
        parent = process.task_lanes[it->second].slot;
      }
      Slice& task = process.task_lanes[lane];
      task = Slice{SliceKind::kTask, NewSlot(),    p, t, parent, lane, 0, e.task_id, kNoIndex,
                   e.time,           e.parent_task};
      process.task_lane_of.emplace(e.task_id, lane);
      listener.OnSliceBegin(task, e);
      at->slice_began = true;
      break;
    }
    case EventKind::kTaskEnd:
      if (auto it = process.task_lane_of.find(e.task_id); it != process.task_lane_of.end()) {
        EndTask(process, it->second, ending, listener);
        at->slice_ended = true;
      }
      break;
    case EventKind::kTaskAdopt:
      EndSegment(thread, ending, listener);
      thread.segment = Slice{SliceKind::kTaskSegment,
                             NewSlot(),
                             p,
                             t,
                             kNoIndex,
                             0,
                             0,
                             e.task_id,
                             kNoIndex,
                             e.time,
                             e.task_id};
      listener.OnSliceBegin(thread.segment, e);
      at->slice_began = true;
      break;
    case EventKind::kTaskRelease:
      if (thread.segment.slot != kNoIndex) {
        EndSegment(thread, ending, listener);
        at->slice_ended = true;
      }
      break;
    case EventKind::kGauge:
      at->gauge = FindOrAddGauge(p, e);
      break;
    default:
      break;
  }
}

// Children and execs, out of Add()'s way (they are rare).
template <typename Listener>
ABSL_ATTRIBUTE_NOINLINE void TrackModel::AddProcessSlice(const Event& e, uint32_t p, uint32_t t,
                                                         EventTracks* at, Listener& listener) {
  ProcessTrack& process = processes_[p];
  switch (e.kind) {
    case EventKind::kChildStart: {
      if (process.child_lanes.contains(e.child_id)) break;
      const uint32_t lane = FreeLane(process);
      Slice& child = process.lanes[lane];
      child = Slice{SliceKind::kChild, NewSlot(), p,     t, kNoIndex, lane, 0,
                    e.child_id,        kNoIndex,  e.time};
      process.child_lanes.emplace(e.child_id, lane);
      listener.OnSliceBegin(child, e);
      at->slice_began = true;
      break;
    }
    case EventKind::kChildExit:
    case EventKind::kChildReady:
      if (auto it = process.child_lanes.find(e.child_id); it != process.child_lanes.end()) {
        EndChild(process, it->second, SliceEnding{SliceEnd::kEndEvent, &e, e.time}, listener);
        at->slice_ended = true;
      }
      break;
    case EventKind::kExec: {
      bool open = false;
      for (const Slice& exec : process.execs) open = open || exec.id == e.exec_id;
      if (open) break;
      process.execs.push_back(
          Slice{SliceKind::kExec, NewSlot(), p, t, kNoIndex, 0, 0, e.exec_id, kNoIndex, e.time});
      listener.OnSliceBegin(process.execs.back(), e);
      at->slice_began = true;
      break;
    }
    case EventKind::kExecResult:
      for (size_t i = 0; i < process.execs.size(); ++i) {
        if (process.execs[i].id != e.exec_id) continue;
        const Slice exec = process.execs[i];
        process.execs.erase(process.execs.begin() + static_cast<ptrdiff_t>(i));
        EndSlice(exec, SliceEnding{SliceEnd::kEndEvent, &e, e.time}, listener);
        at->slice_ended = true;
        break;
      }
      break;
    default:
      break;
  }
}

template <typename Listener>
void TrackModel::EndChildren(uint32_t process, absl::Time time, Listener& listener,
                             SliceEnd cause) {
  ProcessTrack& p = processes_[process];
  for (uint32_t lane = 0; lane < p.lanes.size(); ++lane) {
    if (p.lanes[lane].slot != kNoIndex)
      EndChild(p, lane, SliceEnding{cause, nullptr, time}, listener);
  }
}

template <typename Listener>
void TrackModel::EndThreadRegions(uint32_t thread, absl::Time time, Listener& listener,
                                  SliceEnd cause) {
  ThreadTrack& t = threads_[thread];
  while (!t.regions.empty()) PopRegion(t, SliceEnding{cause, nullptr, time}, listener);
}

template <typename Listener>
bool TrackModel::EndInnermostRegion(uint32_t thread, absl::Time time, Listener& listener,
                                    SliceEnd cause) {
  ThreadTrack& t = threads_[thread];
  if (t.regions.empty()) return false;
  PopRegion(t, SliceEnding{cause, nullptr, time}, listener);
  return true;
}

template <typename Listener>
void TrackModel::EndProcess(uint32_t process, absl::Time time, Listener& listener, SliceEnd cause) {
  const SliceEnding end{cause, nullptr, time};
  for (const auto& [id, thread] : processes_[process].threads) {
    EndThreadRegions(thread, time, listener, cause);
  }
  EndChildren(process, time, listener, cause);
  ProcessTrack& p = processes_[process];
  for (const Slice& exec : p.execs) EndSlice(exec, end, listener);
  p.execs.clear();
  for (const auto& [id, thread] : p.threads) EndSegment(threads_[thread], end, listener);
  for (uint32_t lane = 0; lane < p.task_lanes.size(); ++lane) {
    if (p.task_lanes[lane].slot != kNoIndex) EndTask(p, lane, end, listener);
  }
  for (const auto& [id, thread] : p.threads) EndLifetime(threads_[thread], end, listener);
}

template <typename Listener>
void TrackModel::Finish(Listener& listener) {
  for (uint32_t p = 0; p < processes_.size(); ++p) {
    EndProcess(p, processes_[p].last_time, listener, SliceEnd::kFinish);
  }
}

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_TRACK_MODEL_H_
