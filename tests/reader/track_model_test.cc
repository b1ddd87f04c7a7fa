// The track model (reader/track_model.h) on hand-made event streams: region nesting and
// parents, unwinding, leaves without enters, children on lanes and their links, execs,
// thread lifetimes, the process-end and end-of-input calls, slot reuse and replays.
#include "reader/track_model.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reader/event.h"

namespace tracewire::reader {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kParentSid[] = "20260101T000000.000000Z-H0000-P00000100";
constexpr char kChildSid[] =
    "20260101T000000.000000Z-H0000-P00000100/20260101T000000.000001Z-H0000-P00000200";

std::string Kind(SliceKind kind) {
  switch (kind) {
    case SliceKind::kThread:
      return "thread";
    case SliceKind::kRegion:
      return "region";
    case SliceKind::kChild:
      return "child";
    case SliceKind::kExec:
      return "exec";
    case SliceKind::kTask:
      return "task";
    case SliceKind::kTaskSegment:
      return "segment";
  }
  return "?";
}

std::string Cause(SliceEnd cause) {
  switch (cause) {
    case SliceEnd::kEndEvent:
      return "event";
    case SliceEnd::kUnwound:
      return "unwound";
    case SliceEnd::kProcessEnd:
      return "process-end";
    case SliceEnd::kFinish:
      return "finish";
  }
  return "?";
}

std::string Index(uint32_t index) {
  return index == kNoIndex ? std::string("-") : absl::StrCat(index);
}

// Logs every callback as one line.
struct Recorder : TrackListener {
  void OnProcessBegin(const ProcessTrack& process, const Event& first) {
    log.push_back(absl::StrCat("process ", process.index, " ",
                               process.sid == kChildSid ? "child" : "parent"));
  }
  void OnSliceBegin(const Slice& slice, const Event& e) {
    log.push_back(absl::StrCat("begin ", Kind(slice.kind), " slot=", slice.slot,
                               " thread=", slice.thread, " depth=", slice.depth,
                               " parent=", Index(slice.parent), " id=", slice.id));
  }
  void OnSliceEnd(const Slice& slice, const SliceEnding& end) {
    log.push_back(absl::StrCat("end ", Kind(slice.kind), " slot=", slice.slot, " ",
                               Cause(end.cause), end.event != nullptr ? " by-event" : "",
                               " link=", Index(slice.link), " t=", absl::ToUnixSeconds(end.time)));
  }
  void OnEvent(const Event& e, const EventTracks& at) {
    log.push_back(absl::StrCat("event ", EventKindName(e.kind), " thread=", at.thread,
                               at.first_of_process ? " first" : "", at.slice_began ? " began" : "",
                               at.slice_ended ? " ended" : "", " link=", Index(at.parent_link)));
  }
  std::vector<std::string> Take() { return std::exchange(log, {}); }

  std::vector<std::string> log;
};

// Events of one stream; times count seconds from the Unix epoch.
class TrackModelTest : public ::testing::Test {
 protected:
  Event Make(EventKind kind, int64_t second, uint64_t thread = 0, int nesting = 1,
             const char* sid = kParentSid) {
    Event e;
    e.kind = kind;
    e.sid = sid;
    e.thread_id = thread;
    e.thread_name = thread == 0 ? "main" : "th01:worker";
    e.time = absl::FromUnixSeconds(second);
    e.nesting = nesting;
    return e;
  }
  void Add(const Event& e) { model_.Add(e, recorder_); }

  TrackModel model_;
  Recorder recorder_;
};

TEST_F(TrackModelTest, RegionsNestWithDepthAndParent) {
  Add(Make(EventKind::kStart, 1));
  EXPECT_THAT(recorder_.Take(),
              ElementsAre("process 0 parent", "begin thread slot=0 thread=0 depth=0 parent=- id=0",
                          "event start thread=0 first link=-"));
  Add(Make(EventKind::kRegionEnter, 2, 0, 1));
  Add(Make(EventKind::kRegionEnter, 3, 0, 2));
  EXPECT_THAT(recorder_.Take(), ElementsAre("begin region slot=1 thread=0 depth=0 parent=- id=0",
                                            "event region_enter thread=0 began link=-",
                                            "begin region slot=2 thread=0 depth=1 parent=1 id=0",
                                            "event region_enter thread=0 began link=-"));
  ASSERT_EQ(model_.OpenRegions(0).size(), 2u);
  EXPECT_EQ(model_.OpenRegions(0)[1].nesting, 2);
  EXPECT_EQ(model_.OpenRegions(0)[1].begin, absl::FromUnixSeconds(3));

  Add(Make(EventKind::kRegionLeave, 4, 0, 2));
  Add(Make(EventKind::kRegionLeave, 5, 0, 1));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=2 event by-event link=- t=4",
                                            "event region_leave thread=0 ended link=-",
                                            "end region slot=1 event by-event link=- t=5",
                                            "event region_leave thread=0 ended link=-"));
  EXPECT_THAT(model_.OpenRegions(0), IsEmpty());

  // Slots are reused, the most recently freed first.
  Add(Make(EventKind::kRegionEnter, 6, 0, 1));
  EXPECT_EQ(model_.OpenRegions(0).back().slot, 1u);
  EXPECT_EQ(model_.slot_limit(), 3u);
}

TEST_F(TrackModelTest, LowerNestingUnwindsBeforeTheEvent) {
  Add(Make(EventKind::kRegionEnter, 1, 0, 1));
  Add(Make(EventKind::kRegionEnter, 2, 0, 2));
  Add(Make(EventKind::kRegionEnter, 3, 0, 3));
  recorder_.Take();
  // A timer unwinds every region of its thread (the reader reports nesting 1).
  Add(Make(EventKind::kTimer, 4, 0, 1));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=3 unwound by-event link=- t=4",
                                            "end region slot=2 unwound by-event link=- t=4",
                                            "end region slot=1 unwound by-event link=- t=4",
                                            "event timer thread=0 link=-"));

  // A region_leave ends the regions inside the one it leaves, unwound, then that one.
  Add(Make(EventKind::kRegionEnter, 5, 0, 1));
  Add(Make(EventKind::kRegionEnter, 6, 0, 2));
  recorder_.Take();
  Add(Make(EventKind::kRegionLeave, 7, 0, 1));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=2 unwound by-event link=- t=7",
                                            "end region slot=1 event by-event link=- t=7",
                                            "event region_leave thread=0 ended link=-"));
}

TEST_F(TrackModelTest, LeaveWithoutEnterEndsNothing) {
  // The output started inside a region at nesting 1: its leave has no slice.
  Add(Make(EventKind::kRegionEnter, 1, 0, 2));
  recorder_.Take();
  Add(Make(EventKind::kRegionLeave, 2, 0, 2));
  Add(Make(EventKind::kRegionLeave, 3, 0, 1));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=1 event by-event link=- t=2",
                                            "event region_leave thread=0 ended link=-",
                                            "event region_leave thread=0 link=-"));
  Add(Make(EventKind::kRegionLeave, 4, 0, 1));
  EXPECT_THAT(recorder_.Take(), ElementsAre("event region_leave thread=0 link=-"));
}

TEST_F(TrackModelTest, ThreadsHaveLifetimesAndTheirOwnRegions) {
  Add(Make(EventKind::kStart, 1, 0));
  Add(Make(EventKind::kThreadStart, 2, 5));
  Add(Make(EventKind::kRegionEnter, 3, 5, 1));
  Add(Make(EventKind::kRegionEnter, 4, 0, 1));
  EXPECT_THAT(recorder_.Take(),
              ElementsAre("process 0 parent", "begin thread slot=0 thread=0 depth=0 parent=- id=0",
                          "event start thread=0 first link=-",
                          "begin thread slot=1 thread=1 depth=0 parent=- id=5",
                          "event thread_start thread=1 link=-",
                          "begin region slot=2 thread=1 depth=0 parent=- id=0",
                          "event region_enter thread=1 began link=-",
                          "begin region slot=3 thread=0 depth=0 parent=- id=0",
                          "event region_enter thread=0 began link=-"));
  EXPECT_EQ(model_.thread(1).thread_id, 5u);
  EXPECT_EQ(model_.thread(1).name, "th01:worker");
  EXPECT_EQ(model_.process(0).threads.size(), 2u);

  // thread_exit unwinds the thread's regions, then ends its lifetime after the event.
  Add(Make(EventKind::kThreadExit, 5, 5, 1));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=2 unwound by-event link=- t=5",
                                            "event thread_exit thread=1 link=-",
                                            "end thread slot=1 event by-event link=- t=5"));
  // atexit on main: its regions unwound, then the main thread's lifetime.
  Add(Make(EventKind::kAtexit, 6, 0, 1));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=3 unwound by-event link=- t=6",
                                            "event atexit thread=0 link=-",
                                            "end thread slot=0 event by-event link=- t=6"));
}

TEST_F(TrackModelTest, ChildrenTakeTheLowestFreeLaneAndLinkToTheirProcess) {
  Event start = Make(EventKind::kChildStart, 1);
  start.child_id = 0;
  Add(start);
  start.child_id = 1;
  start.time = absl::FromUnixSeconds(2);
  Add(start);
  Event exit = Make(EventKind::kChildExit, 3);
  exit.child_id = 0;
  exit.pid = 0x200;
  Add(exit);
  start.child_id = 2;
  start.time = absl::FromUnixSeconds(4);
  Add(start);
  EXPECT_THAT(recorder_.Take(),
              ElementsAre("process 0 parent", "begin thread slot=0 thread=0 depth=0 parent=- id=0",
                          "begin child slot=1 thread=0 depth=0 parent=- id=0",
                          "event child_start thread=0 first began link=-",
                          "begin child slot=2 thread=0 depth=1 parent=- id=1",
                          "event child_start thread=0 began link=-",
                          "end child slot=1 event by-event link=1 t=3",
                          "event child_exit thread=0 ended link=-",
                          "begin child slot=1 thread=0 depth=0 parent=- id=2",
                          "event child_start thread=0 began link=-"));
  EXPECT_EQ(model_.link(1).parent_process, 0u);
  EXPECT_EQ(model_.link(1).child_process, kNoIndex);

  // The child process, from its version event, meets the same link.
  Add(Make(EventKind::kVersion, 5, 0, 1, kChildSid));
  EXPECT_THAT(recorder_.Take(),
              ElementsAre("process 1 child", "begin thread slot=3 thread=1 depth=0 parent=- id=0",
                          "event version thread=1 first link=1"));
  EXPECT_EQ(model_.link(1).child_process, 1u);
  EXPECT_EQ(model_.FindProcess(kChildSid), 1u);
  EXPECT_EQ(model_.FindProcess("nope"), std::nullopt);

  // A child_exit of a child the output never started, and a failed spawn: no link.
  exit.child_id = 9;
  Add(exit);
  exit.child_id = 1;
  exit.pid = -1;
  Add(exit);
  EXPECT_THAT(recorder_.Take(), ElementsAre("event child_exit thread=0 link=-",
                                            "end child slot=2 event by-event link=- t=3",
                                            "event child_exit thread=0 ended link=-"));
}

TEST_F(TrackModelTest, ChildProcessSeenFirstTakesTheLinkFirst) {
  Add(Make(EventKind::kStart, 1, 0, 1, kChildSid));
  Event start = Make(EventKind::kChildStart, 2);
  Add(start);
  Event ready = Make(EventKind::kChildReady, 3);
  ready.pid = 0x200;
  Add(ready);
  EXPECT_THAT(recorder_.Take(),
              ElementsAre("process 0 child", "begin thread slot=0 thread=0 depth=0 parent=- id=0",
                          "event start thread=0 first link=1", "process 1 parent",
                          "begin thread slot=1 thread=1 depth=0 parent=- id=0",
                          "begin child slot=2 thread=1 depth=0 parent=- id=0",
                          "event child_start thread=1 first began link=-",
                          "end child slot=2 event by-event link=1 t=3",
                          "event child_ready thread=1 ended link=-"));
  EXPECT_EQ(model_.link(1).parent_process, 1u);
  EXPECT_EQ(model_.link(1).child_process, 0u);
}

TEST_F(TrackModelTest, ExecsEndWithTheirResult) {
  Event exec = Make(EventKind::kExec, 1);
  exec.exec_id = 4;
  Add(exec);
  Add(exec);  // already open: starts nothing
  Event result = Make(EventKind::kExecResult, 2);
  result.exec_id = 4;
  Add(result);
  Add(result);  // no open exec: ends nothing
  EXPECT_THAT(
      recorder_.Take(),
      ElementsAre("process 0 parent", "begin thread slot=0 thread=0 depth=0 parent=- id=0",
                  "begin exec slot=1 thread=0 depth=0 parent=- id=4",
                  "event exec thread=0 first began link=-", "event exec thread=0 link=-",
                  "end exec slot=1 event by-event link=- t=2",
                  "event exec_result thread=0 ended link=-", "event exec_result thread=0 link=-"));
}

TEST_F(TrackModelTest, EndProcessAndFinishEndWhatIsOpen) {
  Add(Make(EventKind::kThreadStart, 1, 7));
  Add(Make(EventKind::kRegionEnter, 2, 7, 1));
  Add(Make(EventKind::kRegionEnter, 3, 0, 1));
  Add(Make(EventKind::kRegionEnter, 4, 0, 2));
  // Events inside the two regions carry nesting 3, as the reader reports them.
  Add(Make(EventKind::kExec, 5, 0, 3));
  Add(Make(EventKind::kChildStart, 6, 0, 3));
  Add(Make(EventKind::kData, 9, 0, 3));  // the process's last time
  Add(Make(EventKind::kRegionEnter, 1, 0, 1, kChildSid));
  recorder_.Take();

  // Regions by thread number (main first), innermost first; children; execs; lifetimes.
  model_.EndProcess(0, absl::FromUnixSeconds(20), recorder_);
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=4 process-end link=- t=20",
                                            "end region slot=3 process-end link=- t=20",
                                            "end region slot=1 process-end link=- t=20",
                                            "end child slot=6 process-end link=- t=20",
                                            "end exec slot=5 process-end link=- t=20",
                                            "end thread slot=2 process-end link=- t=20",
                                            "end thread slot=0 process-end link=- t=20"));
  EXPECT_THAT(model_.OpenRegions(0), IsEmpty());
  EXPECT_THAT(model_.OpenRegions(1), IsEmpty());

  // Finish ends the rest at each process's last time.
  model_.Finish(recorder_);
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=8 finish link=- t=1",
                                            "end thread slot=7 finish link=- t=1"));
  EXPECT_EQ(model_.process(0).last_time, absl::FromUnixSeconds(9));
  EXPECT_EQ(model_.process(0).first_time, absl::FromUnixSeconds(1));
}

TEST_F(TrackModelTest, EndChildrenAndThreadRegionsAreSeparate) {
  Add(Make(EventKind::kRegionEnter, 1, 0, 1));
  Event start = Make(EventKind::kChildStart, 2, 0, 2);
  Add(start);
  start.child_id = 1;
  Add(start);
  recorder_.Take();
  model_.EndChildren(0, absl::FromUnixSeconds(3), recorder_);
  EXPECT_THAT(recorder_.Take(), ElementsAre("end child slot=2 process-end link=- t=3",
                                            "end child slot=3 process-end link=- t=3"));
  EXPECT_EQ(model_.OpenRegions(0).size(), 1u);
  EXPECT_TRUE(model_.EndInnermostRegion(0, absl::FromUnixSeconds(4), recorder_));
  EXPECT_FALSE(model_.EndInnermostRegion(0, absl::FromUnixSeconds(4), recorder_));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=1 process-end link=- t=4"));
}

TEST_F(TrackModelTest, ReplayedRegionsNestUnderTheOpenOnes) {
  // A replay (merging partial results) opens regions without events.
  const uint32_t thread = model_.FindOrAddThread(kParentSid, 3);
  EXPECT_EQ(model_.FindOrAddThread(kParentSid, 3), thread);
  const Slice outer = model_.BeginRegion(thread, 1, absl::FromUnixSeconds(1));
  const Slice inner = model_.BeginRegion(thread, 2, absl::FromUnixSeconds(2));
  EXPECT_EQ(inner.parent, outer.slot);
  EXPECT_EQ(inner.depth, 1u);
  EXPECT_EQ(model_.thread(thread).lifetime.slot, kNoIndex);  // no lifetime: no event seen

  // Events of that thread then follow the replayed stack.
  Add(Make(EventKind::kRegionLeave, 3, 3, 2));
  EXPECT_THAT(recorder_.Take(), ElementsAre(absl::StrCat("end region slot=", inner.slot,
                                                         " event by-event link=- t=3"),
                                            "event region_leave thread=0 ended link=-"));
  EXPECT_EQ(model_.processes().size(), 1u);
  EXPECT_EQ(model_.threads().size(), 1u);
}

Event TaskEvent(Event e, uint64_t task, uint64_t parent = 0) {
  e.task_id = task;
  e.parent_task = parent;
  return e;
}

TEST_F(TrackModelTest, TasksOnLanesAndSegmentsOnThreads) {
  Add(Make(EventKind::kStart, 1));
  recorder_.Take();
  Add(TaskEvent(Make(EventKind::kTaskBegin, 2), 7));
  Add(TaskEvent(Make(EventKind::kTaskBegin, 3), 8, 7));
  EXPECT_THAT(recorder_.Take(), ElementsAre("begin task slot=1 thread=0 depth=0 parent=- id=7",
                                            "event task_begin thread=0 began link=-",
                                            "begin task slot=2 thread=0 depth=1 parent=1 id=8",
                                            "event task_begin thread=0 began link=-"));
  // A worker adopts task 7; a region it enters belongs to the task.
  Event adopt = TaskEvent(Make(EventKind::kTaskAdopt, 4, 1), 7);
  adopt.adopted_task = 7;
  Add(adopt);
  Event enter = Make(EventKind::kRegionEnter, 5, 1, 1);
  enter.adopted_task = 7;
  Add(enter);
  ASSERT_EQ(model_.OpenRegions(1).size(), 1u);
  EXPECT_EQ(model_.OpenRegions(1)[0].task, 7u);
  // Adopting task 8 ends the segment of task 7 and begins one of task 8.
  Add(TaskEvent(Make(EventKind::kTaskAdopt, 6, 1, 2), 8));
  EXPECT_THAT(recorder_.Take(), ElementsAre("begin thread slot=3 thread=1 depth=0 parent=- id=1",
                                            "begin segment slot=4 thread=1 depth=0 parent=- id=7",
                                            "event task_adopt thread=1 began link=-",
                                            "begin region slot=5 thread=1 depth=0 parent=- id=0",
                                            "event region_enter thread=1 began link=-",
                                            "end segment slot=4 event by-event link=- t=6",
                                            "begin segment slot=4 thread=1 depth=0 parent=- id=8",
                                            "event task_adopt thread=1 began link=-"));
  Add(TaskEvent(Make(EventKind::kTaskRelease, 7, 1, 2), 8));
  Add(TaskEvent(Make(EventKind::kTaskEnd, 8, 2), 7));
  // The end of a task whose begin came before the input ends nothing.
  Add(TaskEvent(Make(EventKind::kTaskEnd, 9, 2), 99));
  EXPECT_THAT(recorder_.Take(), ElementsAre("end segment slot=4 event by-event link=- t=7",
                                            "event task_release thread=1 ended link=-",
                                            "begin thread slot=4 thread=2 depth=0 parent=- id=2",
                                            "end task slot=1 event by-event link=- t=8",
                                            "event task_end thread=2 ended link=-",
                                            "event task_end thread=2 link=-"));
  // The lane of task 7 is free again; task 8 is still open and ends with the process.
  Add(TaskEvent(Make(EventKind::kTaskBegin, 10), 9));
  EXPECT_EQ(model_.process(0).task_lanes[0].id, 9u);
  Add(TaskEvent(Make(EventKind::kTaskAdopt, 11, 2), 9));
  recorder_.Take();
  model_.EndProcess(0, absl::FromUnixSeconds(12), recorder_);
  EXPECT_THAT(recorder_.Take(), ElementsAre("end region slot=5 process-end link=- t=12",
                                            "end segment slot=6 process-end link=- t=12",
                                            "end task slot=1 process-end link=- t=12",
                                            "end task slot=2 process-end link=- t=12",
                                            "end thread slot=0 process-end link=- t=12",
                                            "end thread slot=3 process-end link=- t=12",
                                            "end thread slot=4 process-end link=- t=12"));
}

TEST_F(TrackModelTest, ThreadExitEndsItsSegmentAndGaugesHaveTracks) {
  Add(TaskEvent(Make(EventKind::kTaskAdopt, 1, 1), 3));
  Event gauge = Make(EventKind::kGauge, 2, 1);
  gauge.category = "queue";
  gauge.label = "depth";
  gauge.unit = "items";
  Add(gauge);
  Event other = gauge;
  other.label = "bytes";
  Add(other);
  Add(gauge);
  Add(Make(EventKind::kThreadExit, 3, 1));
  EXPECT_THAT(recorder_.Take(),
              ElementsAre("process 0 parent", "begin thread slot=0 thread=0 depth=0 parent=- id=1",
                          "begin segment slot=1 thread=0 depth=0 parent=- id=3",
                          "event task_adopt thread=0 first began link=-",
                          "event gauge thread=0 link=-", "event gauge thread=0 link=-",
                          "event gauge thread=0 link=-", "event thread_exit thread=0 link=-",
                          "end segment slot=1 event by-event link=- t=3",
                          "end thread slot=0 event by-event link=- t=3"));
  ASSERT_EQ(model_.gauges().size(), 2u);
  EXPECT_EQ(model_.gauges()[0].name, "depth");
  EXPECT_EQ(model_.gauges()[0].unit, "items");
  EXPECT_EQ(model_.gauges()[1].name, "bytes");
}

}  // namespace
}  // namespace tracewire::reader
