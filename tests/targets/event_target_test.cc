// EVENT target: exact lines for hand-built events, from lines real git writes (with our
// sid and times), and the brief, nesting, evt and ignore rules.
#include "reader/targets/event_target.h"

#include <string>

#include "absl/strings/str_cat.h"
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

const std::string kPrefix =
    R"({"sid":"20261122T020005.811933Z-H0a7c9cdf-P00001c73","thread":"main")";

// `{"event":"<name>","sid":...,"thread":"main"` + rest.
std::string Line(absl::string_view name, absl::string_view rest) {
  return absl::StrCat(R"({"event":")", name, R"(",)", kPrefix.substr(1), rest, "\n");
}

std::string Brief(const Event& e, int version = 4) {
  FormatterOptions options;
  options.brief = true;
  options.event_version = version;
  return testing::Format("event", options, e);
}

std::string Full(const Event& e, int nesting = 2) {
  FormatterOptions options;
  options.event_nesting = nesting;
  return testing::Format("event", options, e);
}

std::string GitExact(const Event& e) {
  FormatterOptions options;
  options.git_exact = true;
  return testing::Format("event", options, e);
}

TEST(EventTargetTest, BriefVersionKeepsTime) {
  Event e = Ev(EventKind::kVersion);
  e.exe = "2.39.5";
  EXPECT_EQ(Brief(e, 3),
            Line("version", R"(,"time":"2026-11-22T02:00:05.812021Z","evt":"3","exe":"2.39.5"})"));
  EXPECT_EQ(Brief(e, 4),
            Line("version", R"(,"time":"2026-11-22T02:00:05.812021Z","evt":"4","exe":"2.39.5"})"));
}

TEST(EventTargetTest, EveryEvtVersionWritesItsNumber) {
  Event e = Ev(EventKind::kVersion);
  e.exe = "2.22.0";
  for (int version = 1; version <= 4; ++version) {
    EXPECT_EQ(Brief(e, version),
              Line("version", absl::StrCat(R"(,"time":"2026-11-22T02:00:05.812021Z","evt":")",
                                           version, R"(","exe":"2.22.0"})")));
  }
}

// Which events each evt version writes, as git of that era did.
TEST(EventTargetTest, EvtVersionsWriteTheirEraEvents) {
  struct Case {
    EventKind kind;
    int since;
  };
  const Case cases[] = {
      {EventKind::kStart, 1},       {EventKind::kDefParam, 1},  {EventKind::kRegionEnter, 1},
      {EventKind::kChildStart, 1},  {EventKind::kThreadExit, 1}, {EventKind::kTooManyFiles, 2},
      {EventKind::kCmdAncestry, 3}, {EventKind::kChildReady, 3}, {EventKind::kTimer, 3},
      {EventKind::kThTimer, 3},     {EventKind::kCounter, 3},    {EventKind::kThCounter, 3},
      {EventKind::kPrintf, 4},
  };
  for (const Case& c : cases) {
    for (int version = 1; version <= 4; ++version) {
      SCOPED_TRACE(absl::StrCat(reader::EventKindName(c.kind), " evt ", version));
      EXPECT_EQ(Brief(Ev(c.kind), version).empty(), version < c.since);
    }
  }
}

// def_param: the 2.23 document's example has no "scope" (evt 1 and 2); the later
// documents' has it (evt 3 and 4).
TEST(EventTargetTest, DefParamScopeFromEvt3) {
  Event e = Ev(EventKind::kDefParam);
  e.param_scope = "global";
  e.param = "core.abbrev";
  e.param_value = "7";
  for (int version : {1, 2}) {
    EXPECT_EQ(Brief(e, version), Line("def_param", R"(,"param":"core.abbrev","value":"7"})"));
  }
  for (int version : {3, 4}) {
    EXPECT_EQ(Brief(e, version),
              Line("def_param", R"(,"scope":"global","param":"core.abbrev","value":"7"})"));
  }
}

TEST(EventTargetTest, BriefStartHasNoTime) {
  Event e = Ev(EventKind::kStart);
  e.t_abs = 0.000794;
  e.argv = {"git", "status"};
  e.file = "common-main.c";
  e.line = 50;
  EXPECT_EQ(Brief(e), Line("start", R"(,"t_abs":0.000794,"argv":["git","status"]})"));
}

TEST(EventTargetTest, BriefAtexitKeepsTime) {
  Event e = Ev(EventKind::kAtexit);
  e.time = Utc(2026, 11, 22, 2, 0, 5, 815322);
  e.t_abs = 0.004075;
  EXPECT_EQ(Brief(e),
            Line("atexit", R"(,"time":"2026-11-22T02:00:05.815322Z","t_abs":0.004075,"code":0})"));
}

TEST(EventTargetTest, RegionEnterWithFileLineRepo) {
  Event e = Ev(EventKind::kRegionEnter);
  e.time = Utc(2026, 11, 22, 1, 59, 55, 975714);
  e.file = "read-cache.c";
  e.line = 2443;
  e.repo = 1;
  e.category = "index";
  e.label = "do_read_index";
  e.msg = ".git/index";
  EXPECT_EQ(
      Full(e),
      Line(
          "region_enter",
          R"(,"time":"2026-11-22T01:59:55.975714Z","file":"read-cache.c","line":2443,"repo":1,"nesting":1,"category":"index","label":"do_read_index","msg":".git/index"})"));
}

TEST(EventTargetTest, RegionLeaveWithoutCategoryLabelOrMsg) {
  Event e = Ev(EventKind::kRegionLeave);
  e.t_rel = 0.25;
  EXPECT_EQ(Brief(e), Line("region_leave", R"(,"t_rel":0.250000,"nesting":1})"));
}

TEST(EventTargetTest, DataIntValueIsAString) {
  Event e = Ev(EventKind::kData);
  e.time = Utc(2026, 11, 22, 1, 59, 55, 975803);
  e.file = "read-cache.c";
  e.line = 2391;
  e.repo = 1;
  e.t_abs = 0.001207;
  e.t_rel = 0.000089;
  e.nesting = 2;
  e.category = "index";
  e.label = "read/cache_nr";
  e.value_kind = ValueKind::kInt;
  e.value_int = 31;
  e.value_string = "31";
  EXPECT_EQ(
      Full(e),
      Line(
          "data",
          R"(,"time":"2026-11-22T01:59:55.975803Z","file":"read-cache.c","line":2391,"repo":1,"t_abs":0.001207,"t_rel":0.000089,"nesting":2,"category":"index","key":"read/cache_nr","value":"31"})"));
  e.value_int = -42;
  e.value_string = "-42";
  EXPECT_NE(Brief(e).find(R"("value":"-42"})"), std::string::npos);
}

TEST(EventTargetTest, DataWithRepoZero) {
  Event e = testing::DataK1();
  EXPECT_EQ(
      Brief(e),
      Line(
          "data",
          R"(,"repo":0,"t_abs":0.500000,"t_rel":0.500000,"nesting":1,"category":"test_category","key":"k1","value":"v1"})"));
}

TEST(EventTargetTest, DataJsonIsSplicedAndCompacted) {
  Event e = testing::TraverseTreesStatistics();
  EXPECT_EQ(
      Brief(e),
      Line(
          "data_json",
          R"(,"repo":1,"t_abs":0.004064,"t_rel":0.004064,"nesting":1,"category":"traverse_trees","key":"statistics","value":{"traverse_trees_count":1,"traverse_trees_max_depth":1}})"));
  e.value_string = "{\n  \"k\": \"v\",\n  \"a\": [\n    1,\n    2\n  ]\n}";
  EXPECT_NE(Brief(e).find(R"("value":{"k": "v","a": [1,2]}})"), std::string::npos);
}

TEST(EventTargetTest, ChildStartHook) {
  Event e = Ev(EventKind::kChildStart);
  e.child_id = 0;
  e.child_class = "hook";
  e.hook_name = "pre-commit";
  e.argv = {".git/hooks/pre-commit"};
  EXPECT_EQ(
      Brief(e),
      Line(
          "child_start",
          R"(,"child_id":0,"child_class":"hook","hook_name":"pre-commit","use_shell":false,"argv":[".git/hooks/pre-commit"]})"));
}

TEST(EventTargetTest, ChildStartWithCdAndShell) {
  Event e = Ev(EventKind::kChildStart);
  e.child_class = "?";
  e.cd = "my sub";
  e.use_shell = true;
  e.argv = {"path='my sub'; true"};
  EXPECT_EQ(
      Brief(e),
      Line(
          "child_start",
          R"(,"child_id":0,"child_class":"?","cd":"my sub","use_shell":true,"argv":["path='my sub'; true"]})"));
}

TEST(EventTargetTest, ChildStartGitCommandGetsLeadingGit) {
  Event e = testing::GitAliasChildStart();
  EXPECT_EQ(
      Brief(e),
      Line(
          "child_start",
          R"(,"child_id":1,"child_class":"git_alias","use_shell":false,"argv":["git","version"]})"));
}

TEST(EventTargetTest, ChildExitAndReady) {
  Event e = Ev(EventKind::kChildExit);
  e.pid = -1;
  e.code = -1;
  e.t_rel = 0.005349;
  EXPECT_EQ(Brief(e), Line("child_exit", R"(,"child_id":0,"pid":-1,"code":-1,"t_rel":0.005349})"));
  Event r = Ev(EventKind::kChildReady);
  r.pid = 15709;
  r.ready = "ready";
  r.t_rel = 0.007737;
  EXPECT_EQ(Brief(r),
            Line("child_ready", R"(,"child_id":0,"pid":15709,"ready":"ready","t_rel":0.007737})"));
}

TEST(EventTargetTest, ErrorHasMsgAndFmtOnlyWithAFormat) {
  Event e = Ev(EventKind::kError);
  e.msg = "unknown option `bogus'";
  e.fmt = "unknown option `%s'";
  EXPECT_EQ(Brief(e),
            Line("error", R"(,"msg":"unknown option `bogus'","fmt":"unknown option `%s'"})"));
  e.msg = "hello world";
  e.fmt = "%s";
  EXPECT_EQ(Brief(e), Line("error", R"(,"msg":"hello world","fmt":"%s"})"));
  e.msg.reset();
  e.fmt = "";
  EXPECT_EQ(Brief(e), Line("error", "}"));
}

TEST(EventTargetTest, CommandEvents) {
  Event name = Ev(EventKind::kCmdName);
  name.cmd_name = "trace2";
  name.cmd_hierarchy = "trace2/trace2";
  EXPECT_EQ(Brief(name), Line("cmd_name", R"(,"name":"trace2","hierarchy":"trace2/trace2"})"));
  name.cmd_hierarchy = "";
  EXPECT_EQ(Brief(name), Line("cmd_name", R"(,"name":"trace2"})"));

  Event mode = Ev(EventKind::kCmdMode);
  mode.cmd_mode = "path";
  EXPECT_EQ(Brief(mode), Line("cmd_mode", R"(,"name":"path"})"));

  Event alias = Ev(EventKind::kAlias);
  alias.alias = "xyz";
  alias.argv = {"version"};
  EXPECT_EQ(Brief(alias), Line("alias", R"(,"alias":"xyz","argv":["version"]})"));

  Event path = Ev(EventKind::kCmdPath);
  path.cmd_path = "/usr/bin/git";
  EXPECT_EQ(Brief(path), Line("cmd_path", R"(,"path":"/usr/bin/git"})"));

  Event ancestry = Ev(EventKind::kCmdAncestry);
  ancestry.ancestry = {"bash", "bash", "memfd:sealed-91", "process_api"};
  EXPECT_EQ(
      Brief(ancestry),
      Line("cmd_ancestry", R"(,"ancestry":["bash","bash","memfd:sealed-91","process_api"]})"));
}

TEST(EventTargetTest, ExecAndParamsAndRepo) {
  Event exec = Ev(EventKind::kExec);
  exec.exec_id = 0;
  exec.exec_exe = "git";
  exec.argv = {"version"};
  EXPECT_EQ(Brief(exec), Line("exec", R"(,"exec_id":0,"exe":"git","argv":["version"]})"));
  exec.exec_exe.reset();
  EXPECT_EQ(Brief(exec), Line("exec", R"(,"exec_id":0,"argv":["version"]})"));

  Event result = Ev(EventKind::kExecResult);
  result.exec_id = 0;
  result.code = 2;
  EXPECT_EQ(Brief(result), Line("exec_result", R"(,"exec_id":0,"code":2})"));

  Event param = Ev(EventKind::kDefParam);
  param.param_scope = "command";
  param.param = "t.cmd";
  param.param_value = "1";
  EXPECT_EQ(Brief(param), Line("def_param", R"(,"scope":"command","param":"t.cmd","value":"1"})"));
  param.param_value.reset();
  EXPECT_EQ(Brief(param), Line("def_param", R"(,"scope":"command","param":"t.cmd"})"));
  param.param_scope = "";  // git before 2.38 wrote no scope
  EXPECT_EQ(Brief(param), Line("def_param", R"(,"param":"t.cmd"})"));

  Event repo = Ev(EventKind::kDefRepo);
  repo.repo = 1;
  repo.worktree = "/home/u/w";
  EXPECT_EQ(Brief(repo), Line("def_repo", R"(,"repo":1,"worktree":"/home/u/w"})"));
}

TEST(EventTargetTest, ThreadsTimersCounters) {
  Event start = Ev(EventKind::kThreadStart);
  start.thread_name = "th01:ut_101";
  EXPECT_EQ(Brief(start), absl::StrCat(R"({"event":"thread_start","sid":")", testing::kSid,
                                       R"(","thread":"th01:ut_101"})", "\n"));

  Event exit = Ev(EventKind::kThreadExit);
  exit.t_rel = 0.050151;
  EXPECT_EQ(Brief(exit), Line("thread_exit", R"(,"t_rel":0.050151})"));

  Event timer = testing::TimerTest1();
  EXPECT_EQ(
      Brief(timer),
      Line(
          "timer",
          R"(,"category":"test","name":"test1","intervals":3,"t_total":0.015219,"t_min":0.005070,"t_max":0.005076})"));

  Event counter = Ev(EventKind::kCounter);
  counter.category = "test";
  counter.label = "test1";
  counter.count = 15;
  EXPECT_EQ(Brief(counter), Line("counter", R"(,"category":"test","name":"test1","count":15})"));
  // uint64 counters are printed as intmax.
  counter.count = ~uint64_t{0};
  EXPECT_NE(Brief(counter).find(R"("count":-1})"), std::string::npos);
}

TEST(EventTargetTest, InternalEventsNameTheTargetsOwnSiteOnlyWhenGitExact) {
  Event e = Ev(EventKind::kSignal);
  e.t_abs = 0.021335;
  e.signo = 13;
  EXPECT_EQ(
      GitExact(e),
      Line(
          "signal",
          R"(,"time":"2026-11-22T02:00:05.812021Z","file":"trace2/tr2_tgt_event.c","line":191,"t_abs":0.021335,"signo":13})"));
  EXPECT_EQ(Full(e), Line("signal",
                          R"(,"time":"2026-11-22T02:00:05.812021Z","t_abs":0.021335,"signo":13})"));
  Event atexit = Ev(EventKind::kAtexit);
  EXPECT_NE(GitExact(atexit).find(R"("file":"trace2/tr2_tgt_event.c","line":207,)"),
            std::string::npos);
  EXPECT_EQ(Full(atexit).find(R"("file":)"), std::string::npos);
  Event timer = Ev(EventKind::kThTimer);
  EXPECT_NE(GitExact(timer).find(R"("line":657,)"), std::string::npos);
  EXPECT_EQ(Full(timer).find(R"("file":)"), std::string::npos);
  Event counter = Ev(EventKind::kThCounter);
  EXPECT_NE(GitExact(counter).find(R"("line":678,)"), std::string::npos);
  EXPECT_EQ(Full(counter).find(R"("file":)"), std::string::npos);
}

TEST(EventTargetTest, EmptyFileOmitsFileAndLine) {
  Event e = Ev(EventKind::kCmdMode);
  e.cmd_mode = "x";
  e.line = 12;
  EXPECT_EQ(Full(e), Line("cmd_mode", R"(,"time":"2026-11-22T02:00:05.812021Z","name":"x"})"));
}

TEST(EventTargetTest, NestingFilterOnlyForRegionsAndData) {
  Event enter = Ev(EventKind::kRegionEnter);
  enter.nesting = 3;
  EXPECT_EQ(Full(enter), "");
  EXPECT_NE(Full(enter, 3), "");
  enter.nesting = 2;
  EXPECT_NE(Full(enter), "");
  Event data = Ev(EventKind::kData);
  data.nesting = 3;
  EXPECT_EQ(Full(data), "");
  Event json = Ev(EventKind::kDataJson);
  json.nesting = 3;
  json.value_string = "{}";
  EXPECT_EQ(Full(json), "");
  Event leave = Ev(EventKind::kRegionLeave);
  leave.nesting = 2;
  EXPECT_EQ(Full(leave, 1), "");
  // Other events are never filtered.
  Event child = Ev(EventKind::kChildStart);
  child.nesting = 5;
  child.child_class = "?";
  EXPECT_NE(Full(child, 1), "");
}

TEST(EventTargetTest, PrintfOnlyInEvt4) {
  Event e = Ev(EventKind::kPrintf);
  e.t_abs = 0.5;
  e.msg = "two\nlines\n";
  EXPECT_EQ(Brief(e, 4), Line("printf", R"(,"t_abs":0.500000,"msg":"two\nlines\n"})"));
  EXPECT_EQ(Brief(e, 3), "");
}

TEST(EventTargetTest, TooManyFilesAndExperimental) {
  Event e = Ev(EventKind::kTooManyFiles);
  EXPECT_EQ(Brief(e), Line("too_many_files", "}"));
  Event x = Ev(EventKind::kExperimental);
  x.experimental_data = "abc";
  EXPECT_EQ(Brief(x), "");
  EXPECT_EQ(Full(x), "");
}

TEST(EventTargetTest, EscapesStrings) {
  Event e = Ev(EventKind::kStart);
  e.argv = {"a\"b\\c\td\ne\r\x01\x1f\x7f/\xc3\xbc"};
  EXPECT_EQ(Brief(e), Line("start",
                           ","
                           R"("t_abs":0.000000,"argv":["a\"b\\c\td\ne\r\u0001\u001f)"
                           "\x7f/\xc3\xbc\"]}"));
}

TEST(EventTargetTest, ParseEventNestingFollowsAtoi) {
  EXPECT_EQ(ParseEventNesting(""), 2);
  EXPECT_EQ(ParseEventNesting("0"), 2);
  EXPECT_EQ(ParseEventNesting("-1"), 2);
  EXPECT_EQ(ParseEventNesting("abc"), 2);
  EXPECT_EQ(ParseEventNesting("1"), 1);
  EXPECT_EQ(ParseEventNesting("3"), 3);
  EXPECT_EQ(ParseEventNesting(" 7x"), 7);
  EXPECT_EQ(ParseEventNesting("100"), 100);
}

TEST(EventTargetTest, MakeFormatterRejectsBadOptions) {
  FormatterOptions options;
  for (int version : {0, 5, -1}) {
    options.event_version = version;
    EXPECT_EQ(MakeFormatter("event", options).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  options.event_version = 4;
  options.event_nesting = 0;
  EXPECT_EQ(MakeFormatter("event", options).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeFormatter("xml", FormatterOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tracewire::targets
