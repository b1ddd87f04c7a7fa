// PERF target: exact lines for hand-built events, from lines real git writes (with our
// times), and the column, dots and ignore rules.
#include "reader/targets/perf_target.h"

#include <string>

#include "gtest/gtest.h"
#include "reader/targets/formatter.h"
#include "tests/targets/event_fixture.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;
using reader::ValueKind;
using testing::Ev;
using testing::Utc;

std::string Brief(const Event& e) { return testing::FormatBrief("perf", e); }

std::string Full(const Event& e) { return testing::Format("perf", FormatterOptions(), e); }
std::string GitExact(const Event& e) {
  FormatterOptions options;
  options.git_exact = true;
  return testing::Format("perf", options, e);
}

TEST(PerfTargetTest, NonBriefRegionEnterInLocalTime) {
  Event e = Ev(EventKind::kRegionEnter);
  // 23:59:55 UTC shown at UTC+2.
  e.time = Utc(2026, 11, 21, 23, 59, 55, 975707);
  e.utc_offset_sec = 2 * 3600;
  e.file = "read-cache.c";
  e.line = 2443;
  e.repo = 1;
  e.t_abs = 0.001118;
  e.category = "index";
  e.label = "do_read_index";
  e.msg = ".git/index";
  EXPECT_EQ(Full(e),
            "01:59:55.975707 read-cache.c:2443            | d0 | main                     | "
            "region_enter | r1  |  0.001118 |           | index        | label:do_read_index "
            ".git/index\n");
}

TEST(PerfTargetTest, BriefVersionPrefixIs92Bytes) {
  Event e = Ev(EventKind::kVersion);
  e.exe = "2.39.5";
  const std::string line = Brief(e);
  EXPECT_EQ(line,
            "d0 | main                     | version      |     |           |           |        "
            "      | 2.39.5\n");
  EXPECT_EQ(line.find("2.39.5"), 92u);
}

TEST(PerfTargetTest, DataGetsDotsFromNesting) {
  Event e = Ev(EventKind::kData);
  e.repo = 1;
  e.t_abs = 0.001196;
  e.t_rel = 0.000078;
  e.nesting = 2;
  e.category = "index";
  e.label = "read/version";
  e.value_kind = ValueKind::kInt;
  e.value_int = 2;
  e.value_string = "2";
  EXPECT_EQ(Brief(e),
            "d0 | main                     | data         | r1  |  0.001196 |  0.000078 | index   "
            "     | ..read/version:2\n");
}

TEST(PerfTargetTest, DataWithRepoZeroAndLongCategory) {
  Event e = testing::DataK1();
  EXPECT_EQ(Brief(e),
            "d0 | main                     | data         | r0  |  0.500000 |  0.500000 | test_cat"
            "egor | k1:v1\n");
}

TEST(PerfTargetTest, DefParamScopeInTheCategoryColumn) {
  Event e = Ev(EventKind::kDefParam);
  e.param_scope = "command";
  e.param = "t.cmd";
  e.param_value = "1";
  EXPECT_EQ(Brief(e),
            "d0 | main                     | def_param    |     |           |           | scope:co"
            "mman | t.cmd:1\n");
  e.param_value.reset();
  EXPECT_EQ(Brief(e).substr(92), "t.cmd\n");
  e.param_scope = "";  // git before 2.38 wrote no scope: a blank category column
  EXPECT_EQ(Brief(e),
            "d0 | main                     | def_param    |     |           |           |          "
            "    | t.cmd\n");
}

TEST(PerfTargetTest, ChildStartHookInsideARegionGetsDots) {
  Event e = Ev(EventKind::kChildStart);
  e.t_abs = 0.005117;
  e.nesting = 2;
  e.child_class = "hook";
  e.hook_name = "pre-commit";
  e.argv = {".git/hooks/pre-commit"};
  EXPECT_EQ(Brief(e),
            "d0 | main                     | child_start  |     |  0.005117 |           |        "
            "      | ..[ch0] class:hook hook:pre-commit argv:[.git/hooks/pre-commit]\n");
}

TEST(PerfTargetTest, ChildStartWithCdQuotesDirAndArgv) {
  Event e = Ev(EventKind::kChildStart);
  e.depth = 1;
  e.t_abs = 0.000632;
  e.child_class = "?";
  e.cd = "my sub";
  e.use_shell = true;
  e.argv = {"path='my sub'; true"};
  EXPECT_EQ(Brief(e),
            "d1 | main                     | child_start  |     |  0.000632 |           |        "
            "      | [ch0] class:? cd:'my sub' argv:['path='\\''my sub'\\''; true']\n");
}

TEST(PerfTargetTest, ChildStartGitCommand) {
  Event e = testing::GitAliasChildStart();
  EXPECT_EQ(Brief(e).substr(92), "[ch1] class:git_alias argv:[git version]\n");
  e.argv.clear();
  EXPECT_EQ(Brief(e).substr(92), "[ch1] class:git_alias argv:[git]\n");
}

TEST(PerfTargetTest, ChildExitAndReady) {
  Event e = Ev(EventKind::kChildExit);
  e.t_abs = 0.024335;
  e.t_rel = 0.005349;
  e.pid = -1;
  e.code = -1;
  EXPECT_EQ(Brief(e),
            "d0 | main                     | child_exit   |     |  0.024335 |  0.005349 |        "
            "      | [ch0] pid:-1 code:-1\n");
  Event r = Ev(EventKind::kChildReady);
  r.pid = 15709;
  r.ready = "timeout";
  EXPECT_EQ(Brief(r).substr(92), "[ch0] pid:15709 ready:timeout\n");
}

TEST(PerfTargetTest, ThreadRegionWithoutFile) {
  Event e = Ev(EventKind::kRegionEnter);
  e.depth = 1;
  e.thread_name = "th09:ipc-worker";
  e.repo = 1;
  e.t_abs = 1.006491;
  e.category = "fsmonitor";
  e.label = "handle_client";
  EXPECT_EQ(Brief(e),
            "d1 | th09:ipc-worker          | region_enter | r1  |  1.006491 |           | fsmonito"
            "r    | label:handle_client\n");
}

TEST(PerfTargetTest, RegionWithMsgButNoLabel) {
  Event e = Ev(EventKind::kRegionEnter);
  e.msg = "thread-proc on main: on_main";
  EXPECT_EQ(Brief(e).substr(92), " thread-proc on main: on_main\n");
}

TEST(PerfTargetTest, TimersAndCounters) {
  Event th = Ev(EventKind::kThTimer);
  th.thread_name = "th01:ut_101";
  th.category = "test";
  th.label = "test2";
  th.intervals = 2;
  th.t_total = 0.010154;
  th.t_min = 0.005076;
  th.t_max = 0.005078;
  EXPECT_EQ(Brief(th),
            "d0 | th01:ut_101              | th_timer     |     |           |           | test    "
            "     | name:test2 intervals:2 total:0.010154 min:0.005076 max:0.005078\n");
  Event timer = testing::TimerTest1();
  EXPECT_EQ(Brief(timer),
            "d0 | main                     | timer        |     |           |           | test    "
            "     | name:test1 intervals:3 total:0.015219 min:0.005070 max:0.005076\n");
  Event counter = Ev(EventKind::kCounter);
  counter.category = "test";
  counter.label = "test1";
  counter.count = ~uint64_t{0};
  EXPECT_EQ(Brief(counter).substr(92), "name:test1 value:18446744073709551615\n");
}

TEST(PerfTargetTest, DataJsonIsWrittenRaw) {
  Event e = testing::TraverseTreesStatistics();
  EXPECT_EQ(Brief(e),
            "d0 | main                     | data_json    | r1  |  0.004064 |  0.004064 | traverse"
            "_tre | statistics:{\"traverse_trees_count\":1,\"traverse_trees_max_depth\":1}\n");
  e.value_string = "{\n  \"a\": 1\n}";
  EXPECT_EQ(Brief(e).substr(92), "statistics:{\n  \"a\": 1\n}\n");
}

TEST(PerfTargetTest, SignalAndAtexitUseThePerfTargetsOwnSiteOnlyWhenGitExact) {
  Event e = Ev(EventKind::kSignal);
  e.t_abs = 0.021335;
  e.signo = 13;
  EXPECT_EQ(Brief(e),
            "d0 | main                     | signal       |     |  0.021335 |           |        "
            "      | signo:13\n");
  EXPECT_EQ(GitExact(e),
            "02:00:05.812021 trace2/tr2_tgt_perf.c:207    | d0 | main                     | "
            "signal       |     |  0.021335 |           |              | signo:13\n");
  EXPECT_EQ(Full(e),
            "02:00:05.812021                              | d0 | main                     | "
            "signal       |     |  0.021335 |           |              | signo:13\n");
  Event atexit = Ev(EventKind::kAtexit);
  EXPECT_NE(GitExact(atexit).find("trace2/tr2_tgt_perf.c:219 "), std::string::npos);
  EXPECT_EQ(Full(atexit).find("tr2_tgt"), std::string::npos);
  Event timer = testing::TimerTest1();
  EXPECT_NE(GitExact(timer).find("trace2/tr2_tgt_perf.c:580 "), std::string::npos);
  EXPECT_EQ(Full(timer).find("tr2_tgt"), std::string::npos);
}

TEST(PerfTargetTest, LongFileLineIsCutFromTheLeft) {
  Event e = Ev(EventKind::kPrintf);
  e.time = Utc(2026, 11, 22, 2, 5, 0, 778193);
  e.file = "a/really/long/directory/name/file.c";
  e.line = 12345;
  e.msg = "long file";
  EXPECT_EQ(Full(e),
            "02:05:00.778193 ...rectory/name/file.c:12345 | d0 | main                     | "
            "printf       |     |  0.000000 |           |              | long file\n");
}

TEST(PerfTargetTest, EmptyFileLeavesTheColumnBlank) {
  Event e = Ev(EventKind::kCmdName);
  e.cmd_name = "trace2";
  e.cmd_hierarchy = "trace2";
  EXPECT_EQ(Full(e),
            "02:00:05.812021                              | d0 | main                     | "
            "cmd_name     |     |           |           |              | trace2 (trace2)\n");
}

TEST(PerfTargetTest, PrintfEndingInNewlineGetsNoExtraNewline) {
  Event e = Ev(EventKind::kPrintf);
  e.msg = "two\nlines\n";
  EXPECT_EQ(Brief(e).substr(92), "two\nlines\n");
}

TEST(PerfTargetTest, ThreadStartHasATrailingSpace) {
  Event e = Ev(EventKind::kThreadStart);
  e.thread_name = "th01:ut_101";
  e.t_abs = 0.1;
  EXPECT_EQ(Brief(e),
            "d0 | th01:ut_101              | thread_start |     |  0.100000 |           |        "
            "      | \n");
  Event exit = Ev(EventKind::kThreadExit);
  exit.thread_name = "th01:ut_101";
  exit.t_abs = 0.2;
  exit.t_rel = 0.1;
  EXPECT_EQ(Brief(exit),
            "d0 | th01:ut_101              | thread_exit  |     |  0.200000 |  0.100000 |        "
            "      | \n");
}

TEST(PerfTargetTest, StartQuotesArgvAndLargeTimesWidenTheColumn) {
  Event e = Ev(EventKind::kStart);
  e.t_abs = 123.456789;
  e.argv = {"git", "rev-parse", "--verify", "a b", "it's!"};
  EXPECT_EQ(Brief(e),
            "d0 | main                     | start        |     | 123.456789 |           |       "
            "       | git rev-parse --verify 'a b' 'it'\\''s'\\!''\n");
}

TEST(PerfTargetTest, OtherPayloads) {
  Event alias = Ev(EventKind::kAlias);
  alias.alias = "xyz";
  alias.argv = {"version"};
  EXPECT_EQ(Brief(alias).substr(92), "alias:xyz argv:[version]\n");
  Event exec = Ev(EventKind::kExec);
  exec.exec_exe = "git";
  exec.argv = {"git", "version"};
  EXPECT_EQ(Brief(exec).substr(92), "id:0 argv:[git git version]\n");
  exec.argv.clear();
  EXPECT_EQ(Brief(exec).substr(92), "id:0 argv:[git]\n");
  Event result = Ev(EventKind::kExecResult);
  result.code = 2;
  EXPECT_EQ(Brief(result).substr(92), "id:0 code:2 err:No such file or directory\n");
  result.code = -1;
  EXPECT_EQ(Brief(result).substr(92), "id:0 code:-1\n");
  Event repo = Ev(EventKind::kDefRepo);
  repo.repo = 1;
  repo.worktree = "/tmp/my repo";
  EXPECT_EQ(Brief(repo),
            "d0 | main                     | def_repo     | r1  |           |           |        "
            "      | worktree:'/tmp/my repo'\n");
  Event ancestry = Ev(EventKind::kCmdAncestry);
  ancestry.ancestry = {"bash", "memfd:sealed-91"};
  EXPECT_EQ(Brief(ancestry).substr(92), "ancestry:[bash memfd:sealed-91]\n");
  Event error = Ev(EventKind::kError);
  error.msg = "hello world";
  error.fmt = "%s";
  EXPECT_EQ(Brief(error).substr(92), "hello world\n");
  Event mode = Ev(EventKind::kCmdMode);
  mode.cmd_mode = "path";
  EXPECT_EQ(Brief(mode).substr(92), "path\n");
}

TEST(PerfTargetTest, IgnoresTooManyFilesAndExperimental) {
  EXPECT_EQ(Brief(Ev(EventKind::kTooManyFiles)), "");
  EXPECT_EQ(Brief(Ev(EventKind::kExperimental)), "");
}

}  // namespace
}  // namespace tracewire::targets
