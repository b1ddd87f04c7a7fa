// EventWindow (reader/event_window.h): window times parse; processes are kept by sid
// pattern or pid with their descendants; regions open at the edges are entered again at
// `since` and left at `until`; nothing passes after `until`.
#include "reader/event_window.h"

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace tracewire::reader {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST(ParseWindowTimeTest, DurationsSecondsAndUtcTimes) {
  absl::StatusOr<WindowTime> t = ParseWindowTime("2.5s");
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->absolute.has_value());
  EXPECT_EQ(t->offset, absl::Milliseconds(2500));
  ASSERT_TRUE((t = ParseWindowTime("90")).ok());
  EXPECT_EQ(t->offset, absl::Seconds(90));
  ASSERT_TRUE((t = ParseWindowTime("1m30s")).ok());
  EXPECT_EQ(t->offset, absl::Seconds(90));
  ASSERT_TRUE((t = ParseWindowTime("250ns")).ok());
  EXPECT_EQ(t->offset, absl::Nanoseconds(250));
  ASSERT_TRUE((t = ParseWindowTime("2027-01-15T08:00:00.25Z")).ok());
  ASSERT_TRUE(t->absolute.has_value());
  EXPECT_EQ(*t->absolute, absl::FromUnixMillis(1'800'000'000'250));
  for (const char* bad : {"", "-1s", "soon", "2027-01-15", "inf"}) {
    EXPECT_FALSE(ParseWindowTime(bad).ok()) << bad;
  }
}

TEST(EventWindowTest, KeepsAProcessSubtreeBySidPatternOrPid) {
  const std::string root = "20270115T080000.000000Z-H0a7c9cdf-P00001000";
  const std::string child = root + "/20270115T080000.100000Z-H0a7c9cdf-P00001002";
  const std::string grandchild = child + "/20270115T080000.200000Z-H0a7c9cdf-P00001003";
  EventWindowOptions by_pid;
  by_pid.pid = 0x1002;
  EventWindow w(by_pid);
  EXPECT_FALSE(w.KeepsProcess(root));
  EXPECT_TRUE(w.KeepsProcess(child));
  EXPECT_TRUE(w.KeepsProcess(grandchild));
  EventWindowOptions by_sid;
  by_sid.sid_pattern = "*-P00001002";
  EventWindow s(by_sid);
  EXPECT_FALSE(s.KeepsProcess(root));
  EXPECT_TRUE(s.KeepsProcess(child));
  EXPECT_TRUE(s.KeepsProcess(grandchild));
  EXPECT_TRUE(EventWindow(EventWindowOptions{}).KeepsProcess(root));
}

// One event of thread main of one process, `ns` after kStart.
Event At(int64_t ns, EventKind kind, int nesting, absl::string_view label = "") {
  Event e;
  e.kind = kind;
  e.sid = "20270115T080000.000000Z-H0a7c9cdf-P00001000";
  e.thread_name = "main";
  e.time = kStart + absl::Nanoseconds(ns);
  e.nesting = nesting;
  e.category = "cat";
  e.label = label;
  return e;
}

// Adds `events` to `window` until it says the stream is past its end (*more: what the last
// Add returned); returns what passed, each event as `describe` names it.
std::vector<std::string> Pass(EventWindow& window, const std::vector<Event>& events,
                              absl::FunctionRef<std::string(const Event&)> describe, bool* more) {
  std::vector<std::string> out;
  *more = true;
  for (const Event& e : events) {
    if (!*more) break;
    *more = window.Add(e, [&](const Event& passed) { out.push_back(describe(passed)); });
  }
  return out;
}

TEST(EventWindowTest, RegionsOpenAtTheEdgesAreCutThere) {
  EventWindowOptions options;
  options.since = WindowTime{std::nullopt, absl::Nanoseconds(3)};
  options.until = WindowTime{std::nullopt, absl::Nanoseconds(8)};
  EventWindow window(options);
  const std::vector<Event> events = {
      At(0, EventKind::kRegionEnter, 1, "outer"),
      At(1, EventKind::kRegionEnter, 2, "inner"),
      At(2, EventKind::kData, 3),
      At(5, EventKind::kRegionLeave, 2, "inner"),
      At(6, EventKind::kRegionEnter, 2, "x"),
      At(7, EventKind::kRegionLeave, 2, "x"),
      At(9, EventKind::kRegionLeave, 1, "outer"),
      At(10, EventKind::kData, 1),
  };
  bool more;
  const std::vector<std::string> out = Pass(
      window, events,
      [](const Event& passed) {
        return absl::StrCat(EventKindName(passed.kind), " ", passed.label, " @",
                            absl::ToInt64Nanoseconds(passed.time - kStart), " n", passed.nesting);
      },
      &more);
  EXPECT_FALSE(more);
  EXPECT_TRUE(window.past_end());
  EXPECT_EQ(out, (std::vector<std::string>{
                     "region_enter outer @3 n1",  // entered again at since
                     "region_enter inner @3 n2", "region_leave inner @5 n2", "region_enter x @6 n2",
                     "region_leave x @7 n2",
                     "region_leave outer @8 n1",  // left at until
                 }));
}

// A task event of thread `thread` (0: main, 1: a worker), `ns` after kStart.
Event TaskAt(int64_t ns, EventKind kind, uint64_t thread, uint64_t task, uint64_t adopted,
             uint64_t parent = 0) {
  Event e = At(ns, kind, 1, kind == EventKind::kTaskBegin ? "request" : "");
  e.thread_id = thread;
  e.thread_name = thread == 0 ? "main" : "th01:worker";
  e.task_id = task;
  e.parent_task = parent;
  e.adopted_task = adopted;
  return e;
}

TEST(EventWindowTest, TasksAndTheirSegmentsOpenAtTheEdgesAreCutThere) {
  EventWindowOptions options;
  options.since = WindowTime{std::nullopt, absl::Nanoseconds(5)};
  options.until = WindowTime{std::nullopt, absl::Nanoseconds(8)};
  EventWindow window(options);
  Event enter = At(4, EventKind::kRegionEnter, 1, "work");
  enter.thread_id = 1;
  enter.thread_name = "th01:worker";
  enter.adopted_task = 7;
  Event leave = enter;
  leave.kind = EventKind::kRegionLeave;
  leave.time = kStart + absl::Nanoseconds(9);
  const std::vector<Event> events = {
      TaskAt(0, EventKind::kTaskBegin, 0, 7, 0),
      TaskAt(1, EventKind::kTaskBegin, 0, 8, 0, /*parent=*/7),
      TaskAt(2, EventKind::kTaskEnd, 0, 8, 0),
      TaskAt(3, EventKind::kTaskBegin, 0, 9, 0, /*parent=*/7),
      TaskAt(3, EventKind::kTaskAdopt, 1, 7, 7),
      enter,
      TaskAt(6, EventKind::kTaskEnd, 0, 9, 0),
      leave,
      TaskAt(10, EventKind::kTaskRelease, 1, 7, 0),
      TaskAt(11, EventKind::kTaskEnd, 0, 7, 0),
  };
  bool more;
  const std::vector<std::string> out = Pass(
      window, events,
      [](const Event& passed) {
        return absl::StrCat(EventKindName(passed.kind), " ", passed.label, " @",
                            absl::ToInt64Nanoseconds(passed.time - kStart), " t", passed.thread_id,
                            " task ", passed.task_id, "<", passed.parent_task, " adopted ",
                            passed.adopted_task);
      },
      &more);
  EXPECT_FALSE(more);
  EXPECT_EQ(out, (std::vector<std::string>{
                     // At since: the active tasks in the order they began, then the worker's
                     // task segment and its region (which belongs to the task).
                     "task_begin request @5 t0 task 7<0 adopted 0",
                     "task_begin request @5 t0 task 9<7 adopted 0",
                     "task_adopt  @5 t1 task 7<0 adopted 7",
                     "region_enter work @5 t1 task 0<0 adopted 7",
                     "task_end  @6 t0 task 9<0 adopted 0",
                     // At until: the region, the segment, then the tasks.
                     "region_leave work @8 t1 task 0<0 adopted 7",
                     "task_release  @8 t1 task 7<0 adopted 0",
                     "task_end request @8 t0 task 7<0 adopted 0",
                 }));
}

TEST(EventWindowTest, AWindowWithoutEventsStillShowsWhatSpansIt) {
  EventWindowOptions options;
  options.since = WindowTime{std::nullopt, absl::Nanoseconds(3)};
  options.until = WindowTime{std::nullopt, absl::Nanoseconds(5)};
  EventWindow window(options);
  std::vector<std::string> out;
  auto collect = [&](const Event& passed) {
    out.push_back(absl::StrCat(EventKindName(passed.kind), " ", passed.label, " @",
                               absl::ToInt64Nanoseconds(passed.time - kStart)));
  };
  EXPECT_TRUE(window.Add(At(0, EventKind::kRegionEnter, 1, "long"), collect));
  EXPECT_FALSE(window.Add(At(10, EventKind::kRegionLeave, 1, "long"), collect));
  EXPECT_EQ(out, (std::vector<std::string>{"region_enter long @3", "region_leave long @5"}));
}

TEST(EventWindowTest, ProcessesAreStatedAgainAtTheStart) {
  EventWindowOptions options;
  options.since = WindowTime{std::nullopt, absl::Nanoseconds(5)};
  EventWindow window(options);
  Event version = At(0, EventKind::kVersion, 1);
  version.exe = "2.47.0";
  Event start = At(1, EventKind::kStart, 1);
  start.argv = {"git", "status"};
  Event cmd_name = At(2, EventKind::kCmdName, 1);
  cmd_name.cmd_name = "status";
  std::vector<std::string> out;
  for (const Event& e : {version, start, cmd_name, At(6, EventKind::kData, 1)}) {
    window.Add(e, [&](const Event& passed) {
      std::string text = absl::StrCat(EventKindName(passed.kind), " @",
                                      absl::ToInt64Nanoseconds(passed.time - kStart));
      if (passed.kind == EventKind::kVersion) absl::StrAppend(&text, " ", passed.exe);
      for (absl::string_view arg : passed.argv) absl::StrAppend(&text, " ", arg);
      if (passed.kind == EventKind::kCmdName) absl::StrAppend(&text, " ", passed.cmd_name);
      out.push_back(text);
    });
  }
  EXPECT_EQ(out, (std::vector<std::string>{"version @5 2.47.0", "start @5 git status",
                                           "cmd_name @5 status", "data @6"}));
}

TEST(EventWindowTest, AbsoluteTimesAndAnOpenEnd) {
  EventWindowOptions options;
  options.since = WindowTime{kStart + absl::Nanoseconds(2), absl::ZeroDuration()};
  EventWindow window(options);
  std::vector<std::string> out;
  for (const Event& e : {At(1, EventKind::kData, 1), At(2, EventKind::kData, 1),
                         At(3, EventKind::kRegionEnter, 1, "r")}) {
    EXPECT_TRUE(window.Add(e, [&](const Event& passed) {
      out.push_back(absl::StrCat(EventKindName(passed.kind), " @",
                                 absl::ToInt64Nanoseconds(passed.time - kStart)));
    }));
  }
  EXPECT_EQ(out, (std::vector<std::string>{"data @2", "region_enter @3"}));
}

}  // namespace
}  // namespace tracewire::reader
