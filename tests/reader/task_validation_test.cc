// The reader's rules for the task and gauge rows (docs/format.md §15): one test per rule,
// with the exact message; and what a valid task trace reads as (adopted tasks on events,
// re-statements across generations, ends of tasks that began before the input).
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "format/event_spec.h"
#include "gtest/gtest.h"
#include "reader/reader.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::FindRecordOffset;
using ::tracewire::testing::GenBuilder;
using ::tracewire::testing::ReadAll;
using ::tracewire::testing::Trace;
using E = format::EventType;

void ExpectError(const std::string& trace, const std::string& message) {
  const testing::ReadResult result = ReadAll(trace);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kDataLoss) << result.status;
  EXPECT_EQ(std::string(result.status.message()), message);
}

GenBuilder Base(uint64_t gen = 1) {
  GenBuilder g(gen);
  g.Ev(0, E::kVersion, 1100, g.Site("common-main.c", 50), {g.S("2.39.5")});
  return g;
}

uint64_t TaskSite(GenBuilder& g) { return g.Site("server.c", 12, "net", "request"); }
uint64_t Bare(GenBuilder& g) { return g.Site(nullptr, 0); }

TEST(TaskValidationTest, TaskZeroIsRejected) {
  for (E type : {E::kTaskBegin, E::kTaskEnd, E::kTaskAdopt}) {
    GenBuilder g = Base();
    if (type == E::kTaskBegin) {
      g.Ev(0, type, 1200, TaskSite(g), {0, 0});
    } else {
      g.Ev(0, type, 1200, Bare(g), {0});
    }
    const std::string trace = Trace({g.Finish()});
    const std::string name(format::LookupSpec(type)->name);
    ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: %s with "
                                       "task 0 (0 means no task)",
                                       FindRecordOffset(trace, type), name));
  }
}

TEST(TaskValidationTest, TaskThatIsItsOwnParent) {
  GenBuilder g = Base();
  g.Ev(0, E::kTaskBegin, 1200, TaskSite(g), {5, 5});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: "
                                     "task_begin: task 5 names itself as its parent",
                                     FindRecordOffset(trace, E::kTaskBegin)));
}

TEST(TaskValidationTest, SecondBeginOfAnActiveTask) {
  GenBuilder g = Base();
  g.Ev(0, E::kTaskBegin, 1200, TaskSite(g), {5, 0});
  g.Ev(1, E::kTaskBegin, 1300, TaskSite(g), {5, 0});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 1, event 0: byte offset %d: "
                                     "task_begin for task 5, which is already active",
                                     FindRecordOffset(trace, E::kTaskBegin, 1)));
}

TEST(TaskValidationTest, BeginAgainAfterEndIsValid) {
  GenBuilder g = Base();
  g.Ev(0, E::kTaskBegin, 1200, TaskSite(g), {5, 0});
  g.Ev(0, E::kTaskEnd, 1300, Bare(g), {5});
  g.Ev(0, E::kTaskBegin, 1400, TaskSite(g), {5, 0});
  const testing::ReadResult result = ReadAll(Trace({g.Finish()}));
  EXPECT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.debug.size(), 4u);
}

TEST(TaskValidationTest, ReleaseWithoutAdopt) {
  GenBuilder g = Base();
  g.Ev(0, E::kTaskRelease, 1200, Bare(g), {5});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: "
                                     "task_release of task 5 on a thread that has adopted no task",
                                     FindRecordOffset(trace, E::kTaskRelease)));
}

TEST(TaskValidationTest, ReleaseOfAnotherTask) {
  GenBuilder g = Base();
  g.Ev(0, E::kTaskAdopt, 1200, Bare(g), {5});
  g.Ev(0, E::kTaskRelease, 1300, Bare(g), {6});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 2: byte offset %d: "
                                     "task_release of task 6, but the thread works for task 5",
                                     FindRecordOffset(trace, E::kTaskRelease)));
}

TEST(TaskValidationTest, TaskActiveOutsideRestatement) {
  GenBuilder g = Base();
  g.Raw(0, E::kTaskActive, 1200, {TaskSite(g), 5, 0, 1000});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: "
                                     "task_active outside a re-statement: it must follow "
                                     "thread_status, region_active or another task re-statement",
                                     FindRecordOffset(trace, E::kTaskActive)));
}

TEST(TaskValidationTest, TaskAdoptedOutsideRestatement) {
  GenBuilder g = Base();
  g.Raw(0, E::kTaskAdopted, 1200, {5});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: "
                                     "task_adopted outside a re-statement: it must follow "
                                     "thread_status, region_active or task_active",
                                     FindRecordOffset(trace, E::kTaskAdopted)));
}

TEST(TaskValidationTest, TaskActiveBeginsAfterItsRecord) {
  GenBuilder g1 = Base(1);
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
  g2.Raw(0, E::kTaskActive, 3001, {TaskSite(g2), 5, 0, 3500});
  const std::string trace = Trace({g1.Finish(), g2.Finish()});
  ExpectError(trace, absl::StrFormat("generation 2, thread 0, event 1: byte offset %d: "
                                     "task_active begin_time 3500 is after the record time 3001",
                                     FindRecordOffset(trace, E::kTaskActive)));
}

TEST(TaskValidationTest, RestatedAdoptionMustMatch) {
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kTaskAdopt, 2000, Bare(g1), {5});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
  g2.Raw(0, E::kTaskAdopted, 3001, {6});
  g2.Ev(0, E::kData, 3100, g2.Site("a.c", 1, "c", "k"), {g2.S("v")});
  const std::string trace = Trace({g1.Finish(), g2.Finish()});
  ExpectError(trace, absl::StrFormat("generation 2, thread 0, event 2: byte offset %d: the "
                                     "re-statement names task 6 as the thread's adopted task, "
                                     "but it had adopted task 5 at the end of the previous "
                                     "generation",
                                     FindRecordOffset(trace, E::kData)));
}

TEST(TaskValidationTest, RestatedTaskCannotBeginAgain) {
  // Generation 2 read alone: the re-statement makes task 5 active.
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
  g2.Raw(0, E::kTaskActive, 3001, {TaskSite(g2), 5, 0, 1500});
  g2.Ev(0, E::kTaskBegin, 3100, TaskSite(g2), {5, 0});
  const std::string trace = Trace({g2.Finish()});
  ExpectError(trace, absl::StrFormat("generation 2, thread 0, event 2: byte offset %d: "
                                     "task_begin for task 5, which is already active",
                                     FindRecordOffset(trace, E::kTaskBegin)));
}

TEST(TaskValidationTest, ValidTaskTraceAcrossGenerations) {
  // Task 5 begins on main, thread 1 works for it across the generation switch (re-stated),
  // then thread 2 ends it; ending task 9, which began before the trace, is valid.
  GenBuilder g1 = Base(1);
  g1.Ev(0, E::kTaskBegin, 1200, TaskSite(g1), {5, 0});
  g1.Ev(1, E::kThreadStart, 1250, g1.Site("t.c", 1), {g1.S("th01:worker")});
  g1.Ev(1, E::kTaskAdopt, 1300, Bare(g1), {5});
  g1.Ev(1, E::kRegionEnter, 1400, g1.Site("w.c", 3, "work", "parse"), {0});
  g1.Ev(0, E::kGauge, 1450, g1.Site(nullptr, 0, "queue", "depth"), {3 << 1, g1.S("items")});
  GenBuilder g2(2, "SID0", 4242, 1000, 3000);
  g2.Raw(0, E::kThreadStatus, 3000, {g2.S("main"), 1000});
  g2.Raw(0, E::kTaskActive, 3001, {TaskSite(g2), 5, 0, 1200});
  g2.Raw(1, E::kThreadStatus, 3002, {g2.S("th01:worker"), 1250});
  g2.Raw(1, E::kRegionActive, 3003, {g2.Site("w.c", 3, "work", "parse"), 0, 1400});
  g2.Raw(1, E::kTaskAdopted, 3004, {5});
  g2.Ev(1, E::kRegionLeave, 3100, g2.Site("w.c", 3, "work", "parse"), {0});
  g2.Ev(1, E::kTaskRelease, 3200, Bare(g2), {5});
  g2.Ev(2, E::kTaskEnd, 3300, Bare(g2), {5});
  g2.Ev(2, E::kTaskEnd, 3400, Bare(g2), {9});
  const testing::ReadResult result = ReadAll(Trace({g1.Finish(), g2.Finish()}));
  ASSERT_TRUE(result.status.ok()) << result.status;
  ASSERT_EQ(result.debug.size(), 10u);
  EXPECT_TRUE(absl::StartsWith(result.debug[1], "task_begin ")) << result.debug[1];
  EXPECT_TRUE(absl::StrContains(result.debug[1], "cat=net label=request")) << result.debug[1];
  EXPECT_TRUE(absl::StrContains(result.debug[1], "task=5 parent=0")) << result.debug[1];
  EXPECT_TRUE(absl::StrContains(result.debug[3], "task_adopt ")) << result.debug[3];
  EXPECT_TRUE(absl::StrContains(result.debug[3], "adopted_task=5")) << result.debug[3];
  // The region entered while thread 1 works for task 5 belongs to it.
  EXPECT_TRUE(absl::StartsWith(result.debug[4], "region_enter ")) << result.debug[4];
  EXPECT_TRUE(absl::StrContains(result.debug[4], "adopted_task=5")) << result.debug[4];
  EXPECT_TRUE(absl::StrContains(result.debug[5], "gauge ")) << result.debug[5];
  EXPECT_TRUE(absl::StrContains(result.debug[5], "value=3 unit=\"items\"")) << result.debug[5];
  // In generation 2 the re-stated adoption still attributes the leave to task 5.
  EXPECT_TRUE(absl::StartsWith(result.debug[6], "region_leave ")) << result.debug[6];
  EXPECT_TRUE(absl::StrContains(result.debug[6], "adopted_task=5")) << result.debug[6];
  EXPECT_TRUE(absl::StartsWith(result.debug[7], "task_release ")) << result.debug[7];
  EXPECT_FALSE(absl::StrContains(result.debug[7], "adopted_task")) << result.debug[7];
  EXPECT_TRUE(absl::StrContains(result.debug[9], "task_end ")) << result.debug[9];
  EXPECT_TRUE(absl::StrContains(result.debug[9], "task=9")) << result.debug[9];
}

}  // namespace
}  // namespace tracewire::reader
