// Interoperability with real git: git runs with all three Trace2 targets enabled (EVENT
// non-brief with GIT_TRACE2_EVENT_NESTING=100, PERF and NORMAL non-brief); its EVENT file
// is imported with `tracewire import`, decoded again with `tracewire decode` into all three
// formats, and compared line by line with git's own three files.
//
// Masked, and only these (what an EVENT stream cannot carry):
//  (a) the wall-clock prefixes: every target reads the clock separately, NORMAL and PERF
//      in local time without a date. EVENT "time" values must agree within 1 µs instead,
//      and t_abs/t_rel exactly (see event_compare.h).
//  (b) the file:line of atexit, signal, timer, counter, th_timer and th_counter in NORMAL
//      and PERF: each git target reports its own source line (trace2/tr2_tgt_normal.c:126,
//      trace2/tr2_tgt_perf.c:216, ...), and the EVENT stream only has the EVENT target's.
//  (c) PERF's t_abs column of region_enter, region_leave, child_start, child_exit,
//      child_ready, thread_start, thread_exit, exec and exec_result: their EVENT lines have
//      no t_abs; the importer places them from "time" (git 2.39.5's EVENT target writes
//      no t_abs for them).
// Everything else must match byte for byte: PERF dots (the stream keeps every depth), sid
// depth, repo, categories, t_rel, payloads and shell quoting. None of the other ways git's
// PERF and NORMAL output can differ from what its EVENT stream carries occurs in these
// commands (no git child without arguments, no pretty data_json), so nothing else is
// masked; a new difference fails the test.
//
// The test is hermetic: HOME is a temporary directory, GIT_CONFIG_NOSYSTEM=1, identities
// come from -c, and every GIT_TRACE2_* variable but the ones set here is removed. Without
// git on PATH it is skipped.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/event_compare.h"
#include "tests/cli/git_support.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;

constexpr int kCommandTimeoutSeconds = 120;  // a bound on hangs only

// Events whose file:line is the target's own (mask b).
const std::set<std::string>& InternalEvents() {
  static const auto* events =
      new std::set<std::string>{"atexit", "signal", "timer", "th_timer", "counter", "th_counter"};
  return *events;
}

// Events without t_abs in EVENT (mask c).
const std::set<std::string>& NoAbsEvents() {
  static const auto* events = new std::set<std::string>{
      "region_enter", "region_leave", "child_start", "child_exit", "child_ready",
      "thread_start", "thread_exit",  "exec",        "exec_result"};
  return *events;
}

// A non-brief PERF line with masks (a), (b) and (c) applied:
// "HH:MM:SS.uuuuuu <file:line, 28 wide> | d0 | thread | event | repo | abs | rel | cat | ..."
std::string MaskPerf(const std::string& line) {
  if (line.size() < 16 + 28 + 3) return line;  // a continuation line of a multi-line payload
  std::string file_line = line.substr(16, 28);
  std::vector<std::string> columns =
      absl::StrSplit(absl::string_view(line).substr(16 + 28 + 3), absl::MaxSplits(" | ", 7));
  if (columns.size() < 8) return line;
  const std::string event(absl::StripAsciiWhitespace(columns[2]));
  if (InternalEvents().contains(event)) file_line = "<file:line>";
  if (NoAbsEvents().contains(event)) columns[4] = "<t_abs>";
  return absl::StrCat("<time> ", file_line, " | ", absl::StrJoin(columns, " | "));
}

// A non-brief NORMAL line ("HH:MM:SS.uuuuuu file:line<pad to 50>payload") with masks (a)
// and (b) applied.
std::string MaskNormal(const std::string& line) {
  if (line.size() < 16 || line[2] != ':' || line[15] != ' ') return line;  // continuation
  const std::string rest = line.substr(16);
  const std::string payload = line.size() > 50 ? line.substr(50) : "";
  const std::string event = payload.substr(0, payload.find_first_of(" ["));
  if (InternalEvents().contains(event)) return absl::StrCat("<time> <file:line> ", payload);
  return absl::StrCat("<time> ", rest);
}

// Compares git's NORMAL or PERF file with tracewire's rendering, masked.
std::vector<std::string> CompareMasked(const std::string& expected, const std::string& actual,
                                       std::string (*mask)(const std::string&)) {
  return CompareLines(
      expected, actual,
      [mask](size_t number, const std::string& want, const std::string& got,
             std::vector<std::string>* problems) {
        if (mask(want) != mask(got)) {
          problems->push_back(absl::StrCat("line ", number, " differs\n  git:       ", want,
                                           "\n  tracewire: ", got));
        }
      });
}

class GitInteropTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    start_ = std::chrono::steady_clock::now();
    start_cpu_seconds_ = CpuSeconds();
    if (!HasGit()) return;
    has_git_ = true;
    root_ = NewTempDir("git");
    // A repository with a submodule, two commits (one large file, so that `git log -p`
    // outgrows the pipe) and a pre-commit hook; set up without tracing.
    const CommandResult r = MakeGitRepository(root_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // Options for git commands: hermetic, no tracing unless `trace` names the files.
  static RunOptions Options(const std::string& trace = "") {
    RunOptions options = HermeticGitOptions(root_, root_, kCommandTimeoutSeconds);
    if (!trace.empty()) {
      options.env.insert(options.env.end(), {{"GIT_TRACE2_EVENT", trace + ".event"},
                                             {"GIT_TRACE2_EVENT_NESTING", "100"},
                                             {"GIT_TRACE2_PERF", trace + ".perf"},
                                             {"GIT_TRACE2", trace + ".normal"}});
    }
    return options;
  }

  // Runs `script` (sh -c, in the repository) with tracing into <root>/<name>.*, then
  // imports, decodes and compares. Returns git's EVENT stream.
  std::string Check(const std::string& name, const std::string& script,
                    const std::vector<std::pair<std::string, std::string>>& extra_env = {}) {
    const std::string trace = absl::StrCat(root_, "/", name);
    RunOptions options = Options(trace);
    options.cwd = root_ + "/repo";
    options.env.insert(options.env.end(), extra_env.begin(), extra_env.end());
    const CommandResult git = Shell(script, options);
    EXPECT_LT(git.exit_code, 126) << git.err;
    const std::string event = ReadFile(trace + ".event");
    const std::string perf = ReadFile(trace + ".perf");
    const std::string normal = ReadFile(trace + ".normal");
    EXPECT_FALSE(event.empty());

    const CommandResult imported = RunCommand(
        {Tracewire(), "import", "--from=trace2-event", trace + ".event", "-o", trace + ".twr"});
    EXPECT_EQ(imported.exit_code, 0) << imported.err;
    auto decode = [&](const std::vector<std::string>& flags) {
      std::vector<std::string> argv = {Tracewire(), "decode"};
      argv.insert(argv.end(), flags.begin(), flags.end());
      argv.push_back(trace + ".twr");
      const CommandResult r = RunCommand(argv);
      EXPECT_EQ(r.exit_code, 0) << r.err;
      return r.out;
    };
    const std::vector<std::string> event_problems =
        CompareEventStreams(
            event, decode({"--format=event", "--git_exact", "--nesting=100", "--evt=3"}), 1.0);
    EXPECT_TRUE(event_problems.empty()) << "EVENT\n" << absl::StrJoin(event_problems, "\n");
    const std::vector<std::string> perf_problems =
        CompareMasked(perf, decode({"--format=perf", "--git_exact"}), MaskPerf);
    EXPECT_TRUE(perf_problems.empty()) << "PERF\n" << absl::StrJoin(perf_problems, "\n");
    const std::vector<std::string> normal_problems =
        CompareMasked(normal, decode({"--format=normal", "--git_exact"}), MaskNormal);
    EXPECT_TRUE(normal_problems.empty()) << "NORMAL\n" << absl::StrJoin(normal_problems, "\n");
    return event;
  }

  void SetUp() override {
    if (!has_git_) GTEST_SKIP() << "git is not installed";
  }

  // The CPU seconds (user and system) of this process and of the children it waited for.
  static double CpuSeconds() {
    double seconds = 0;
    for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
      rusage usage = {};
      getrusage(who, &usage);
      seconds += usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
                 usage.ru_stime.tv_usec / 1e6;
    }
    return seconds;
  }

  // The suite's budget is in CPU seconds (its own and its git and tracewire commands'),
  // which a loaded machine does not stretch as it stretches the wall-clock time.
  static void TearDownTestSuite() {
    const double cpu_seconds = CpuSeconds() - start_cpu_seconds_;
    const double wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "git interop: %.1f CPU seconds, %.1f s wall-clock\n", cpu_seconds,
                 wall_seconds);
    EXPECT_LT(cpu_seconds, 30) << "the interop test must stay under 30 CPU seconds";
  }

  static inline bool has_git_ = false;
  static inline std::string root_;
  static inline std::chrono::steady_clock::time_point start_;
  static inline double start_cpu_seconds_ = 0;
};

TEST_F(GitInteropTest, Status) {
  // Also def_params of every scope (config and environment) and a submodule child with cd.
  const std::string event =
      Check("status", "git -c core.preloadIndex=true -c index.threads=2 status >/dev/null",
            {{"GIT_TRACE2_CONFIG_PARAMS", "core.*,index.*,user.*"},
             {"GIT_TRACE2_ENV_VARS", "HOME,LANG"}});
  EXPECT_THAT(event, HasSubstr("\"event\":\"def_param\""));
  EXPECT_THAT(event, HasSubstr("\"event\":\"cmd_ancestry\""));
  EXPECT_THAT(event, HasSubstr("\"nesting\":3"));
  EXPECT_THAT(event, HasSubstr("\"cd\":\"sub\""));
}

// The def_param rows of tw_cmd_list_config and tw_cmd_list_env_vars against git's
// trace2_cmd_list_config and trace2_cmd_list_env_vars, which every git builtin calls after
// cmd_name. git runs with settings in the system, global, local and command scopes;
// testtool is told the same settings with the same scopes in git's order (`git config
// --list --show-scope`), and both run with the same pattern and variable lists. Their
// def_param lines (NORMAL, brief) must be identical, but for the one documented version
// difference: git 2.39 gives environment variables the scope "unknown", git 2.42 and later
// (and tracewire) "command".
TEST_F(GitInteropTest, ConfigParamsAndEnvVarsMatchGit) {
  const std::string dir = absl::StrCat(root_, "/cfg");
  RunOptions setup = Options();
  ASSERT_EQ(Shell(absl::StrCat("set -e; mkdir -p ", dir, "; cd ", dir, "; ", kGit,
                               " init -q repo; cd repo; git config t.loc 'local val'; "
                               "git config t.glob localoverride; git config remote.origin.url "
                               "https://example.com/r.git; git config Core.Editor vi"),
                  setup)
                .exit_code,
            0);
  ASSERT_TRUE(WriteFile(dir + "/system", "[t]\n\tsys = sysval\n[core]\n\tpager = less\n"));
  ASSERT_TRUE(WriteFile(dir + "/global", "[t]\n\tglob = globalval\n\tGlobCase = Mixed\n"));
  const std::string command_config = "-c t.cmd=1 -c T.Cmd2='two words'";

  auto git_options = [&](const std::string& trace) {
    RunOptions options = Options();
    options.cwd = dir + "/repo";
    options.env.erase(std::remove(options.env.begin(), options.env.end(),
                                  std::pair<std::string, std::string>("GIT_CONFIG_NOSYSTEM", "1")),
                      options.env.end());
    options.unset_env.push_back("GIT_CONFIG_NOSYSTEM");
    options.env.insert(options.env.end(), {{"GIT_CONFIG_SYSTEM", dir + "/system"},
                                           {"GIT_CONFIG_GLOBAL", dir + "/global"},
                                           {"MYVAR", "x y"},
                                           {"EMPTYVAR", ""}});
    if (!trace.empty()) {
      options.env.insert(options.env.end(), {{"GIT_TRACE2", trace}, {"GIT_TRACE2_BRIEF", "1"}});
    }
    return options;
  };
  // Every setting git sees, in its order, as testtool arguments: <scope> <key>=<value>.
  const CommandResult list = Shell(
      absl::StrCat("git ", command_config, " config --list --show-scope"), git_options(""));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::vector<std::string> settings;
  for (const std::string& line : Lines(list.out)) {
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos) << line;
    settings.push_back(line.substr(0, tab));
    settings.push_back(line.substr(tab + 1));
  }
  ASSERT_GE(settings.size(), 2 * 10u) << list.out;

  auto def_params = [](const std::string& normal) {
    std::vector<std::string> rows;
    for (const std::string& line : Lines(normal)) {
      if (absl::StartsWith(line, "def_param ")) rows.push_back(line);
    }
    return rows;
  };
  struct Case {
    std::string patterns;
    std::string env_vars;
  };
  const Case cases[] = {
      {"t.*, core.bare", "MYVAR,NOPE, HOME"},
      {"*", ""},
      {"T.G?OB,CORE.*", "MYVAR,MYVAR,EMPTYVAR"},
      {"[ct]*.*b*,remote.*.url", " HOME ,"},
      {"nomatch", "NOPE"},
      {" , t.cmd,", ","},
      {"*.*l*", "LANG,LC_ALL"},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat("patterns '", c.patterns, "', variables '", c.env_vars, "'"));
    const std::string git_trace = absl::StrCat(dir, "/git", n, ".normal");
    RunOptions git = git_options(git_trace);
    git.env.insert(git.env.end(), {{"GIT_TRACE2_CONFIG_PARAMS", c.patterns},
                                   {"GIT_TRACE2_ENV_VARS", c.env_vars}});
    ASSERT_EQ(Shell(absl::StrCat("git ", command_config, " version >/dev/null"), git).exit_code, 0);
    std::vector<std::string> expected = def_params(ReadFile(git_trace));
    for (std::string& row : expected) {
      // git 2.39 -> 2.42: environment variables get the scope "command".
      if (absl::StartsWith(row, "def_param scope:unknown ")) {
        row = absl::StrCat("def_param scope:command ", row.substr(24));
      }
    }

    const std::string tw_trace = absl::StrCat(dir, "/tw", n++, ".twr");
    RunOptions tw = git_options("");
    tw.unset_env.insert(tw.unset_env.end(), {"TRACEWIRE_STACKS", "TRACEWIRE_REDACT"});
    tw.env.insert(tw.env.end(), {{"TRACEWIRE", tw_trace},
                                 {"TRACEWIRE_CONFIG_PARAMS", c.patterns},
                                 {"TRACEWIRE_ENV_VARS", c.env_vars},
                                 {"XDG_CONFIG_HOME", dir}});
    std::vector<std::string> argv = {Runfile("tests/testtool/testtool"), "trace2", "config"};
    argv.insert(argv.end(), settings.begin(), settings.end());
    const CommandResult ran = RunCommand(argv, tw);
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    const CommandResult decoded =
        RunCommand({Tracewire(), "decode", "--format=normal", "--brief", tw_trace});
    ASSERT_EQ(decoded.exit_code, 0) << decoded.err;
    EXPECT_EQ(def_params(decoded.out), expected)
        << "git:\n" << absl::StrJoin(expected, "\n") << "\ntracewire:\n" << decoded.out;
  }
}

TEST_F(GitInteropTest, Alias) {
  const std::string event = Check("alias", "git -c alias.st=status st >/dev/null");
  EXPECT_THAT(event, HasSubstr("\"event\":\"alias\""));
  EXPECT_THAT(event, HasSubstr("\"child_class\":\"git_alias\""));
  EXPECT_THAT(event, HasSubstr("\"child_class\":\"dashed\""));
}

TEST_F(GitInteropTest, Hook) {
  const std::string event =
      Check("hook", absl::StrCat("echo c > c && ", kGit, " add c && ", kGit, " commit -qm hooked"));
  EXPECT_THAT(event, HasSubstr("\"hook_name\":\"pre-commit\""));
}

TEST_F(GitInteropTest, SubmoduleForeach) {
  const std::string event = Check("foreach", "git submodule foreach true >/dev/null");
  EXPECT_TRUE(std::regex_search(event, std::regex(R"("cd":"sub","use_shell":true)")));
}

TEST_F(GitInteropTest, Errors) {
  const std::string event = Check(
      "error", "git rev-parse --verify nonexistent 2>/dev/null; git bogus-command 2>/dev/null");
  EXPECT_THAT(event, HasSubstr("\"event\":\"error\""));
  EXPECT_THAT(event, HasSubstr("\"code\":128"));
}

TEST_F(GitInteropTest, Sigpipe) {
  const std::string event = Check("sigpipe", "git log -p | head -1 >/dev/null");
  EXPECT_THAT(event, HasSubstr("\"event\":\"signal\""));
  EXPECT_THAT(event, HasSubstr("\"signo\":13"));
}

}  // namespace
}  // namespace tracewire::cli_test
