// Event::DebugString: the common fields, then each kind's payload fields (visited through
// the field bindings of reader/event_fields.h), byte for byte.
#include "reader/event.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace tracewire::reader {
namespace {

// Builds one Event of each kind with distinctive payload values.
std::vector<Event> AllKindEvents() {
  std::vector<Event> events;
  auto base = [](EventKind kind) {
    Event e;
    e.kind = kind;
    e.gen = 2;
    e.sid = "SID";
    e.depth = 0;
    e.thread_name = "main";
    e.time = absl::FromUnixSeconds(1700000000);
    e.file = "f.c";
    e.line = 7;
    e.t_abs = 0.25;
    e.category = "cat";
    e.label = "lab";
    return e;
  };
  static const std::vector<absl::string_view> kArgv = {"git", "status"};
  for (size_t k = 0; k < kNumEventKinds; ++k) {
    Event e = base(EventKind(k));
    e.exe = "2.45.0";
    e.argv = kArgv;
    e.code = -3;
    e.signo = 9;
    e.msg = "message";
    e.fmt = "fmt %s";
    e.cmd_path = "/usr/bin/git";
    e.ancestry = {"bash", "sshd"};
    e.cmd_name = "status";
    e.cmd_hierarchy = "status";
    e.cmd_mode = "mode";
    e.alias = "st";
    e.child_id = 4;
    e.child_class = "hook";
    e.hook_name = "pre-commit";
    e.use_shell = true;
    e.is_git_command = false;
    e.pid = 1234;
    e.ready = "timeout";
    e.exec_id = 5;
    e.exec_exe = "ls";
    e.param_scope = "global";
    e.param = "core.x";
    e.param_value = "1";
    e.repo = 1;
    e.worktree = "/w";
    e.value_string = "42";
    e.intervals = 3;
    e.t_total = 1.5;
    e.t_min = 0.25;
    e.t_max = 1;
    e.count = 17;
    e.task_id = 9;
    e.parent_task = 3;
    e.value_int = -5;
    e.unit = "items";
    e.t_rel = 0.125;
    e.wire_type = 128;
    e.experimental_data = "abcd";
    events.push_back(e);
  }
  return events;
}

TEST(EventTest, DebugStringOfEveryKind) {
  const std::vector<std::string> expected = {
      "version gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" exe=2.45.0",
      "too_many_files gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\"",
      "start gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" "
      "argv=[\"git\",\"status\"]",
      "exit gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" code=-3",
      "signal gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" signo=9",
      "atexit gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" code=-3",
      "error gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" fmt=\"fmt %s\"",
      "cmd_path gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" path=/usr/bin/git",
      "cmd_ancestry gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" "
      "ancestry=[\"bash\",\"sshd\"]",
      "cmd_name gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" name=status "
      "hierarchy=\"status\"",
      "cmd_mode gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" mode=mode",
      "alias gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" alias=st "
      "argv=[\"git\",\"status\"]",
      "child_start gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" child_id=4 "
      "class=hook hook=\"pre-commit\" cd=none use_shell=1 git=0 argv=[\"git\",\"status\"]",
      "child_exit gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" child_id=4 "
      "pid=1234 code=-3",
      "child_ready gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" child_id=4 "
      "pid=1234 ready=timeout",
      "exec gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" exec_id=5 "
      "exe=\"ls\" argv=[\"git\",\"status\"]",
      "exec_result gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" code=-3",
      "thread_start gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\"",
      "thread_exit gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\"",
      "def_param gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" scope=global "
      "param=core.x value=\"1\"",
      "def_repo gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" worktree=/w",
      "region_enter gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\"",
      "region_leave gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\"",
      "data gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" value=42",
      "data_json gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" value=42",
      "printf gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\"",
      "th_timer gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" intervals=3 "
      "total=1.500000 min=0.250000 max=1.000000",
      "timer gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" intervals=3 "
      "total=1.500000 min=0.250000 max=1.000000",
      "th_counter gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" count=17",
      "counter gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" count=17",
      "task_begin gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" task=9 "
      "parent=3",
      "task_end gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" task=9",
      "task_adopt gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" task=9",
      "task_release gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" task=9",
      "gauge gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 repo=1 "
      "t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" value=-5 "
      "unit=\"items\"",
      "cpu_sample gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" "
      "weight=17",
      "cpu_samples_lost gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" "
      "count=17",
      "experimental gen=2 sid=SID d0 thread=main time=2023-11-14T22:13:20.000000Z file=f.c:7 "
      "repo=1 t_abs=0.250000 t_rel=0.125000 nesting=1 cat=cat label=lab msg=\"message\" type=128 "
      "bytes=4"};
  const std::vector<Event> events = AllKindEvents();
  ASSERT_EQ(events.size(), expected.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].DebugString(), expected[i]) << EventKindName(events[i].kind);
  }
}

TEST(EventTest, DebugStringMentionsAnAttachedStack) {
  Event e;
  e.kind = EventKind::kPrintf;
  const SymbolFrame frames[2] = {};
  e.stack = frames;
  EXPECT_TRUE(absl::EndsWith(e.DebugString(), " stack=2 frames")) << e.DebugString();
}

}  // namespace
}  // namespace tracewire::reader
