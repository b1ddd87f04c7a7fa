// NORMAL target: exact lines for hand-built events, from lines real git writes (with our
// times), and the prefix, printf and ignore rules.
#include "reader/targets/normal_target.h"

#include <string>

#include "gtest/gtest.h"
#include "reader/targets/formatter.h"
#include "tests/targets/event_fixture.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;
using testing::Ev;
using testing::Utc;

std::string Brief(const Event& e) { return testing::FormatBrief("normal", e); }

std::string Full(const Event& e) { return testing::Format("normal", FormatterOptions(), e); }
std::string GitExact(const Event& e) {
  FormatterOptions options;
  options.git_exact = true;
  return testing::Format("normal", options, e);
}

// The brief lines git writes for `git -c alias.xyz=version xyz`.
TEST(NormalTargetTest, AliasSessionBriefLines) {
  Event version = Ev(EventKind::kVersion);
  version.exe = "2.39.5";
  EXPECT_EQ(Brief(version), "version 2.39.5\n");

  Event start = Ev(EventKind::kStart);
  start.argv = {"git", "-c", "alias.xyz=version", "xyz"};
  EXPECT_EQ(Brief(start), "start git -c alias.xyz=version xyz\n");

  Event ancestry = Ev(EventKind::kCmdAncestry);
  ancestry.ancestry = {"bash", "bash", "bash", "memfd:sealed-91", "process_api"};
  EXPECT_EQ(Brief(ancestry),
            "cmd_ancestry bash <- bash <- bash <- memfd:sealed-91 <- process_api\n");

  Event name = Ev(EventKind::kCmdName);
  name.cmd_name = "_run_dashed_";
  name.cmd_hierarchy = "_run_dashed_";
  EXPECT_EQ(Brief(name), "cmd_name _run_dashed_ (_run_dashed_)\n");

  Event child = Ev(EventKind::kChildStart);
  child.child_class = "dashed";
  child.argv = {"git-xyz"};
  EXPECT_EQ(Brief(child), "child_start[0] git-xyz\n");

  Event failed = Ev(EventKind::kChildExit);
  failed.pid = -1;
  failed.code = -1;
  failed.t_rel = 0.005349;
  EXPECT_EQ(Brief(failed), "child_exit[0] pid:-1 code:-1 elapsed:0.005349\n");

  Event alias = Ev(EventKind::kAlias);
  alias.alias = "xyz";
  alias.argv = {"version"};
  EXPECT_EQ(Brief(alias), "alias xyz -> version\n");

  Event git_child = Ev(EventKind::kChildStart);
  git_child.child_id = 1;
  git_child.child_class = "git_alias";
  git_child.is_git_command = true;
  git_child.argv = {"version"};
  EXPECT_EQ(Brief(git_child), "child_start[1] git version\n");

  Event exited = Ev(EventKind::kChildExit);
  exited.child_id = 1;
  exited.pid = 8995;
  exited.t_rel = 0.023274;
  EXPECT_EQ(Brief(exited), "child_exit[1] pid:8995 code:0 elapsed:0.023274\n");

  Event exit = Ev(EventKind::kExit);
  exit.t_abs = 0.047881;
  EXPECT_EQ(Brief(exit), "exit elapsed:0.047881 code:0\n");

  Event atexit = Ev(EventKind::kAtexit);
  atexit.t_abs = 0.047899;
  EXPECT_EQ(Brief(atexit), "atexit elapsed:0.047899 code:0\n");
}

TEST(NormalTargetTest, NonBriefPayloadStartsAtColumn50) {
  Event e = Ev(EventKind::kVersion);
  e.time = Utc(2026, 11, 22, 1, 59, 55, 975215);
  e.file = "common-main.c";
  e.line = 50;
  e.exe = "2.39.5";
  EXPECT_EQ(Full(e), "01:59:55.975215 common-main.c:50                  version 2.39.5\n");
  EXPECT_EQ(Full(e).find("version"), 50u);
}

TEST(NormalTargetTest, LocalTimeUsesTheUtcOffset) {
  Event e = Ev(EventKind::kVersion);
  e.time = Utc(2026, 11, 22, 6, 59, 55, 975215);
  e.utc_offset_sec = -5 * 3600;
  e.exe = "2.39.5";
  EXPECT_EQ(Full(e), "01:59:55.975215                                   version 2.39.5\n");
}

TEST(NormalTargetTest, LongPrefixPushesThePayload) {
  Event e = Ev(EventKind::kPrintf);
  e.time = Utc(2026, 11, 22, 2, 5, 0, 778193);
  e.file = "a/really/long/directory/name/file.c";
  e.line = 12345;
  e.msg = "long file";
  EXPECT_EQ(Full(e), "02:05:00.778193 a/really/long/directory/name/file.c:12345 long file\n");
}

TEST(NormalTargetTest, PrintfHasNoPrefixWordAndNoExtraNewline) {
  Event e = Ev(EventKind::kPrintf);
  e.time = Utc(2026, 11, 22, 2, 5, 0, 778183);
  e.file = "t/helper/test-trace2.c";
  e.line = 543;
  e.msg = "two\nlines\n";
  EXPECT_EQ(Full(e), "02:05:00.778183 t/helper/test-trace2.c:543        two\nlines\n");
  EXPECT_EQ(Brief(e), "two\nlines\n");
  // An empty brief line is not written at all.
  e.msg = "";
  EXPECT_EQ(Brief(e), "");
}

TEST(NormalTargetTest, Errors) {
  Event e = Ev(EventKind::kError);
  e.msg = "hello world";
  e.fmt = "%s";
  EXPECT_EQ(Brief(e), "error hello world\n");
  e.msg.reset();
  e.fmt = "";
  EXPECT_EQ(Brief(e), "error\n");
}

TEST(NormalTargetTest, SignalPrintsTheSignoAsCodeAndGitsOwnSiteOnlyWhenGitExact) {
  Event e = Ev(EventKind::kSignal);
  e.t_abs = 0.021335;
  e.signo = 13;
  EXPECT_EQ(Brief(e), "signal elapsed:0.021335 code:13\n");
  EXPECT_EQ(GitExact(e),
            "02:00:05.812021 trace2/tr2_tgt_normal.c:118       signal elapsed:0.021335 code:13\n");
  EXPECT_EQ(Full(e),
            "02:00:05.812021                                   signal elapsed:0.021335 code:13\n");
  Event atexit = Ev(EventKind::kAtexit);
  EXPECT_NE(GitExact(atexit).find(" trace2/tr2_tgt_normal.c:128 "), std::string::npos);
  EXPECT_EQ(Full(atexit).find("tr2_tgt"), std::string::npos);
  // An internal event recorded with a call site keeps it either way.
  atexit.file = "app.c";
  atexit.line = 7;
  EXPECT_NE(Full(atexit).find(" app.c:7 "), std::string::npos);
  EXPECT_NE(GitExact(atexit).find(" app.c:7 "), std::string::npos);
}

TEST(NormalTargetTest, DefParamsAndRepo) {
  Event e = Ev(EventKind::kDefParam);
  e.param_scope = "global";
  e.param = "t.glob";
  e.param_value = "globalval";
  EXPECT_EQ(Brief(e), "def_param scope:global t.glob=globalval\n");
  e.param_scope = "unknown";
  e.param = "MYVAR";
  e.param_value = "x y";
  EXPECT_EQ(Brief(e), "def_param scope:unknown MYVAR=x y\n");
  e.param = "foo.true";
  e.param_value.reset();
  EXPECT_EQ(Brief(e), "def_param scope:unknown foo.true\n");
  e.param_scope = "";  // git before 2.38 wrote no scope
  EXPECT_EQ(Brief(e), "def_param foo.true\n");

  Event repo = Ev(EventKind::kDefRepo);
  repo.repo = 1;
  repo.worktree = "/home/u/w";
  EXPECT_EQ(Brief(repo), "worktree /home/u/w\n");
}

TEST(NormalTargetTest, ChildStartVariants) {
  Event e = Ev(EventKind::kChildStart);
  e.child_class = "?";
  e.cd = "my sub";
  e.use_shell = true;
  e.argv = {"path='my sub'; true"};
  EXPECT_EQ(Brief(e), "child_start[0] cd 'my sub'; 'path='\\''my sub'\\''; true'\n");
  // A git command with no arguments leaves a trailing space.
  Event git = Ev(EventKind::kChildStart);
  git.is_git_command = true;
  EXPECT_EQ(Brief(git), "child_start[0] git \n");
  Event ready = Ev(EventKind::kChildReady);
  ready.pid = 15709;
  ready.ready = "ready";
  ready.t_rel = 0.007737;
  EXPECT_EQ(Brief(ready), "child_ready[0] pid:15709 ready:ready elapsed:0.007737\n");
}

TEST(NormalTargetTest, ExecAndResult) {
  Event e = Ev(EventKind::kExec);
  e.exec_exe = "git";
  e.argv = {"git", "version"};
  EXPECT_EQ(Brief(e), "exec[0] git git version\n");
  e.exec_exe.reset();
  EXPECT_EQ(Brief(e), "exec[0] git version\n");
  Event result = Ev(EventKind::kExecResult);
  result.code = 2;
  EXPECT_EQ(Brief(result), "exec_result[0] code:2 err:No such file or directory\n");
}

TEST(NormalTargetTest, TimersAndCounters) {
  Event timer = testing::TimerTest1();
  EXPECT_EQ(Brief(timer),
            "timer test/test1 intervals:3 total:0.015219 min:0.005070 max:0.005076\n");
  Event th = Ev(EventKind::kThCounter);
  th.thread_name = "th01:ut_201";
  th.category = "test";
  th.label = "test2";
  th.count = 20;
  EXPECT_EQ(Brief(th), "th_counter test/test2 value:20\n");
}

TEST(NormalTargetTest, QuotesControlAndNonAsciiArguments) {
  Event e = Ev(EventKind::kStart);
  e.argv = {"git", "rev-parse", "--verify", "a\"b\\c\td\r\x01\x1f\x7f/\xc3\xbc"};
  EXPECT_EQ(Brief(e), "start git rev-parse --verify 'a\"b\\c\td\r\x01\x1f\x7f/\xc3\xbc'\n");
  e.argv = {"git", "clone", "https://user:<REDACTED>@example.com/"};
  EXPECT_EQ(Brief(e), "start git clone 'https://user:<REDACTED>@example.com/'\n");
}

TEST(NormalTargetTest, IgnoredEvents) {
  for (EventKind kind : {EventKind::kThreadStart, EventKind::kThreadExit, EventKind::kRegionEnter,
                         EventKind::kRegionLeave, EventKind::kData, EventKind::kDataJson,
                         EventKind::kTooManyFiles, EventKind::kExperimental}) {
    EXPECT_EQ(Brief(Ev(kind)), "") << reader::EventKindName(kind);
    EXPECT_EQ(Full(Ev(kind)), "") << reader::EventKindName(kind);
  }
}

TEST(NormalTargetTest, CommandEvents) {
  Event path = Ev(EventKind::kCmdPath);
  path.cmd_path = "/usr/lib/git-core/git";
  EXPECT_EQ(Brief(path), "cmd_path /usr/lib/git-core/git\n");
  Event mode = Ev(EventKind::kCmdMode);
  mode.cmd_mode = "path";
  EXPECT_EQ(Brief(mode), "cmd_mode path\n");
  Event name = Ev(EventKind::kCmdName);
  name.cmd_name = "status";
  EXPECT_EQ(Brief(name), "cmd_name status\n");
}

}  // namespace
}  // namespace tracewire::targets
