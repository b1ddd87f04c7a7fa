// The settings file (parsing, paths, precedence, tolerance), the reports of the program's
// settings and environment (def_param), and the automatic cmd_ancestry.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/ancestry.h"
#include "runtime/category_filter.h"
#include "runtime/config_params.h"
#include "runtime/settings_file.h"
#include "tracewire/tracewire.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"

namespace tracewire::testing {
namespace {

using runtime::ConfigPatternMatches;
using runtime::ParsedSettings;
using runtime::ParseSettingsText;
using runtime::SplitReportingList;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(SettingsFileTest, ParsesKeyValueLines) {
  const ParsedSettings parsed = ParseSettingsText(
      "# fleet tracing\n"
      "\n"
      "TRACEWIRE = /var/log/traces\r\n"
      "  TRACEWIRE_MAX_FILES=100  \n"
      "; another comment\n"
      "TRACEWIRE_APP_VERSION = \"2.0 beta\"\n"
      "TRACEWIRE_CONFIG_PARAMS = core.*, http.*\n"
      "TRACEWIRE_STACKS =\n"
      "TRACEWIRE_MAX_FILES = 200\n");
  EXPECT_EQ(parsed.bad_lines, 0);
  EXPECT_THAT(parsed.values, ElementsAre(Pair("TRACEWIRE", "/var/log/traces"),
                                         Pair("TRACEWIRE_MAX_FILES", "100"),
                                         Pair("TRACEWIRE_APP_VERSION", "2.0 beta"),
                                         Pair("TRACEWIRE_CONFIG_PARAMS", "core.*, http.*"),
                                         Pair("TRACEWIRE_STACKS", ""),
                                         Pair("TRACEWIRE_MAX_FILES", "200")));
}

TEST(SettingsFileTest, BadLinesAreCountedAndNamedByNumberOnly) {
  const ParsedSettings parsed = ParseSettingsText(
      "TRACEWIRE = 1\n"
      "this line has no equals sign\n"
      "= value without key\n"
      "TRACEWIRE_PARENT_SID = set-by-the-runtime\n"
      "password = hunter2\n"
      "TRACEWIRE_COMPRESS = 1\n"
      "x y = secret value\n");
  EXPECT_EQ(parsed.bad_lines, 5);
  EXPECT_EQ(parsed.first_problem, "line 2: expected 'key = value'");
  EXPECT_THAT(parsed.values,
              ElementsAre(Pair("TRACEWIRE", "1"), Pair("TRACEWIRE_COMPRESS", "1")));
  // Only the first problem is described, and never with a value from the file.
  EXPECT_FALSE(absl::StrContains(parsed.first_problem, "hunter2"));
  EXPECT_EQ(ParseSettingsText("x y = secret\n").first_problem, "line 1: unknown setting");
  EXPECT_EQ(ParseSettingsText(std::string("TRACEWIRE = a\0b\n", 16)).bad_lines, 1);
}

TEST(SettingsFileTest, OnlyTheDocumentedNamesAreAccepted) {
  for (const char* name : {"TRACEWIRE", "TRACEWIRE_APP_VERSION", "TRACEWIRE_GENERATION_MS",
                           "TRACEWIRE_GENERATION_BYTES", "TRACEWIRE_COMPRESS", "TRACEWIRE_REDACT",
                           "TRACEWIRE_STACKS", "TRACEWIRE_MAX_FILES", "TRACEWIRE_DST_DEBUG",
                           "TRACEWIRE_CONFIG_PARAMS", "TRACEWIRE_ENV_VARS", "TRACEWIRE_ANCESTRY",
                           "TRACEWIRE_CPU_PROFILE"}) {
    EXPECT_TRUE(runtime::IsFileSettingName(name)) << name;
  }
  for (const char* name : {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME", "TRACEWIRE_CLOCK",
                           "tracewire", "HOME", ""}) {
    EXPECT_FALSE(runtime::IsFileSettingName(name)) << name;
  }
}

TEST(SettingsFileTest, UserPathFollowsXdgThenHome) {
  EXPECT_EQ(runtime::UserSettingsPath("/x/cfg", "/home/u"), "/x/cfg/tracewire/config");
  EXPECT_EQ(runtime::UserSettingsPath(nullptr, "/home/u"), "/home/u/.config/tracewire/config");
  // A relative XDG_CONFIG_HOME is invalid (XDG Base Directory spec): ignored.
  EXPECT_EQ(runtime::UserSettingsPath("rel", "/home/u"), "/home/u/.config/tracewire/config");
  EXPECT_EQ(runtime::UserSettingsPath("", nullptr), "");
  EXPECT_EQ(runtime::UserSettingsPath(nullptr, "relative"), "");
}

// Environment > user file > system file; an empty environment variable hides nothing.
TEST(SettingsFileTest, PrecedenceEnvironmentUserSystem) {
  const std::string dir = MakeTempDir("settings");
  mkdir((dir + "/xdg").c_str(), 0755);
  mkdir((dir + "/xdg/tracewire").c_str(), 0755);
  WriteFile(dir + "/system.conf",
        "TRACEWIRE_APP_VERSION = system\nTRACEWIRE_MAX_FILES = 5\nTRACEWIRE_ENV_VARS = A\n"
        "TRACEWIRE_GENERATION_MS = 7\n");
  WriteFile(dir + "/xdg/tracewire/config", "TRACEWIRE_APP_VERSION = user\nTRACEWIRE_ENV_VARS = B\n");
  const std::string system_path = dir + "/system.conf";
  const int status = RunInChild(
      ChildEnv({{"XDG_CONFIG_HOME", dir + "/xdg"}, {"TRACEWIRE_ENV_VARS", "C"}}),
      [&system_path] {
        runtime::SetSystemSettingsPathForTesting(system_path.c_str());
        setenv("TRACEWIRE_GENERATION_MS", "", 1);  // empty: the files still count
        const tw_settings s = runtime::LoadSettings();
        int bad = 0;
        if (std::string(s.app_version) != "user") bad |= 1;
        if (s.max_files != 5) bad |= 2;
        if (std::string(s.env_vars) != "C") bad |= 4;
        if (s.generation_ms != 7) bad |= 8;
        if (s.target != nullptr) bad |= 16;
        return bad;
      });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "bit mask of wrong settings";
}

// TRACEWIRE_CATEGORIES from the system file, the environment taking precedence.
TEST(SettingsFileTest, CategoriesFromTheFilesAndTheEnvironment) {
  const std::string dir = MakeTempDir("categories");
  WriteFile(dir + "/system.conf", "TRACEWIRE_CATEGORIES = *, -debug\n");
  const std::string system_path = dir + "/system.conf";
  for (const bool from_environment : {false, true}) {
    std::map<std::string, std::string> env;
    if (from_environment) env["TRACEWIRE_CATEGORIES"] = "net";
    const int status = RunInChild(ChildEnv(env), [&system_path, from_environment] {
      runtime::SetSystemSettingsPathForTesting(system_path.c_str());
      const tw_settings s = runtime::LoadSettings();
      if (s.categories == nullptr) return 1;
      return std::string(s.categories) == (from_environment ? "net" : "*, -debug") ? 0 : 2;
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "from the environment: " << from_environment;
  }
}

// The filter's rule: recorded if an include pattern matches (none given: "*") and no
// exclude pattern does; wildcards as TRACEWIRE_CONFIG_PARAMS; no category is "".
TEST(CategoryFilterTest, IncludeAndExcludePatterns) {
  runtime::SetCategoryFilter(nullptr);
  EXPECT_FALSE(runtime::CategoryFilterActive());
  EXPECT_TRUE(runtime::CategoryRecorded("anything"));
  runtime::SetCategoryFilter("*, -debug, -verbose.*");
  EXPECT_TRUE(runtime::CategoryRecorded("net"));
  EXPECT_TRUE(runtime::CategoryRecorded(""));
  EXPECT_FALSE(runtime::CategoryRecorded("debug"));
  EXPECT_FALSE(runtime::CategoryRecorded("DEBUG"));  // case-insensitive, as config keys
  EXPECT_FALSE(runtime::CategoryRecorded("verbose.io"));
  EXPECT_TRUE(runtime::CategoryRecorded("verbose"));
  runtime::SetCategoryFilter("net,db.*");
  EXPECT_TRUE(runtime::CategoryRecorded("net"));
  EXPECT_TRUE(runtime::CategoryRecorded("db.query"));
  EXPECT_FALSE(runtime::CategoryRecorded("dbx"));
  EXPECT_FALSE(runtime::CategoryRecorded(""));
  runtime::SetCategoryFilter("-net");  // excludes only: everything else
  EXPECT_TRUE(runtime::CategoryRecorded("db"));
  EXPECT_FALSE(runtime::CategoryRecorded("net"));
  runtime::SetCategoryFilter("");
  EXPECT_TRUE(runtime::CategoryRecorded("net"));
}

// A user file under a long path (beyond the start-up path's small buffer) is still read.
TEST(SettingsFileTest, UserFileUnderALongPathIsRead) {
  std::string xdg = MakeTempDir("long");
  while (xdg.size() < 400) {
    xdg += "/directory-name-making-the-path-long";
    mkdir(xdg.c_str(), 0755);
  }
  mkdir((xdg + "/tracewire").c_str(), 0755);
  WriteFile(xdg + "/tracewire/config", "TRACEWIRE_APP_VERSION = deep\n");
  const int status = RunInChild(ChildEnv({{"XDG_CONFIG_HOME", xdg}}), [] {
    const tw_settings s = runtime::LoadSettings();
    return s.app_version != nullptr && std::string(s.app_version) == "deep" ? 0 : 1;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// An operator switches tracing on with the system file alone; a bad line warns once and
// the program runs on.
TEST(SettingsFileTest, SystemFileEnablesTracingAndBadLinesWarnOnce) {
  const std::string dir = MakeTempDir("fleet");
  const std::string traces = dir + "/traces";
  mkdir(traces.c_str(), 0755);
  WriteFile(dir + "/tracewire.conf", absl::StrCat("# fleet-wide\nTRACEWIRE = ", traces,
                                              "\nTRACEWIRE_APP_VERSION = fleet-1\n"
                                              "garbage line\nTRACEWIRE_BOGUS = 1\n"));
  const std::string system_path = dir + "/tracewire.conf";
  const std::string err = dir + "/stderr";
  const int status = RunInChild(ChildEnv({}), [&] {
    StderrTo(err);
    runtime::SetSystemSettingsPathForTesting(system_path.c_str());
    tw_initialize_clock();
    tw_initialize();
    tw_initialize();  // a second call reads nothing again
    const char* argv[] = {"prog", nullptr};
    tw_cmd_start(argv);
    return tw_cmd_exit(tw_is_enabled() ? 3 : 4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const std::string warnings = ReadFile(err);
  EXPECT_EQ(warnings, absl::StrCat("warning: tracewire: settings file '", system_path,
                                   "': line 4: expected 'key = value'; ignored (1 more bad "
                                   "line)\n"));
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(traces));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->Events("version").size(), 1u);
  EXPECT_EQ(trace->Events("version")[0].Str("exe_string"), "fleet-1");
}

TEST(SettingsFileTest, MissingFifoAndHugeFilesNeverBreakTheProgram) {
  const std::string dir = MakeTempDir("odd");
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::string huge = dir + "/huge";
  WriteFile(huge, absl::StrCat("TRACEWIRE_APP_VERSION = first\n",
                           std::string(runtime::kMaxSettingsFileSize, '#'),
                           "\nTRACEWIRE_APP_VERSION = beyond\n"));
  for (const std::string& path : {dir + "/missing", fifo, huge, dir}) {
    SCOPED_TRACE(path);
    const std::string err = dir + "/stderr";
    const int status = RunInChild(ChildEnv({}), [&] {
      StderrTo(err);
      runtime::SetSystemSettingsPathForTesting(path.c_str());
      const char* version = runtime::LoadSettings().app_version;
      if (path == huge) return version != nullptr && std::string(version) == "first" ? 0 : 1;
      return version == nullptr ? 0 : 1;
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    const std::string warnings = ReadFile(err);
    if (path == dir + "/missing") {
      EXPECT_EQ(warnings, "");  // no file is the normal case
    } else {
      EXPECT_THAT(warnings, HasSubstr("warning: tracewire: settings file '" + path));
    }
  }
}

TEST(ConfigParamsTest, SplitsListsAsGit) {
  EXPECT_THAT(SplitReportingList("t.*, core.bare"), ElementsAre("t.*", "core.bare"));
  EXPECT_THAT(SplitReportingList("a,b,"), ElementsAre("a", "b"));
  EXPECT_THAT(SplitReportingList("a,,b"), ElementsAre("a", "", "b"));
  EXPECT_THAT(SplitReportingList(" , x ,"), ElementsAre("", "x"));
  EXPECT_THAT(SplitReportingList(","), ElementsAre(""));
  EXPECT_THAT(SplitReportingList(""), ElementsAre());
}

TEST(ConfigParamsTest, WildcardsMatchAsGitsWildmatchWithCasefold) {
  EXPECT_TRUE(ConfigPatternMatches("core.*", "core.bare"));
  EXPECT_TRUE(ConfigPatternMatches("CORE.*", "core.bare"));
  EXPECT_TRUE(ConfigPatternMatches("core.*", "Core.Bare"));
  EXPECT_TRUE(ConfigPatternMatches("remote.*.url", "remote.origin.url"));
  EXPECT_TRUE(ConfigPatternMatches("*", "url.https://example.com/.insteadof"));
  EXPECT_TRUE(ConfigPatternMatches("t.g?ob", "t.glob"));
  EXPECT_TRUE(ConfigPatternMatches("[ct]*.b*", "core.bare"));
  EXPECT_TRUE(ConfigPatternMatches("[!x]*", "core.bare"));
  EXPECT_TRUE(ConfigPatternMatches("a\\*", "a*"));
  EXPECT_FALSE(ConfigPatternMatches("a\\*", "ab"));
  EXPECT_FALSE(ConfigPatternMatches("core.*", "score.bare"));
  EXPECT_FALSE(ConfigPatternMatches("", "core.bare"));
  EXPECT_FALSE(ConfigPatternMatches("t.g?ob", "t.gob"));
}

int ReportingWorkload() {
  tw_initialize_clock();
  tw_initialize();
  const char* argv[] = {"prog", nullptr};
  tw_cmd_start(argv);
  tw_cmd_set_config_scope("core.bare", "false", "local");
  tw_cmd_set_config_scope("http.proxy", "https://me:secret@proxy.example.com/", "global");
  tw_cmd_set_config_scope("ignored.key", "1", "system");
  tw_cmd_set_config_scope("core.bare", "true", "local");  // same key and scope: updated
  tw_cmd_set_config_scope("core.bare", "x", "command");   // another scope: another row
  tw_cmd_set_config_scope("core.flag", nullptr, "command");
  tw_cmd_set_config("core.unscoped", "u");
  tw_cmd_list_config();
  tw_cmd_set_config_scope("core.later", "1", "command");  // after the list: reported now
  tw_cmd_set_config_scope("other.later", "1", "command");
  tw_cmd_list_env_vars();
  return tw_cmd_exit(0);
}

TEST(ConfigParamsTest, ListConfigSetConfigAndEnvVarsRecordDefParams) {
  const std::string dir = MakeTempDir("params");
  const int status =
      RunInChild(ChildEnv({{"TRACEWIRE", dir},
                           {"TRACEWIRE_CONFIG_PARAMS", "core.*, HTTP.*"},
                           {"TRACEWIRE_ENV_VARS", "TW_TEST_A,TW_TEST_UNSET, TW_TEST_EMPTY,TW_TEST_B"},
                           {"TW_TEST_A", "a value"},
                           {"TW_TEST_B", "https://u:p@h/"},
                           {"TW_TEST_EMPTY", ""},
                           {"TRACEWIRE_ANCESTRY", "0"}}),
                 ReportingWorkload);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  std::vector<std::string> rows;
  for (const DecodedEvent& e : trace->Events("def_param")) {
    rows.push_back(absl::StrCat(e.Str("scope_string").value_or("-"), " ",
                                e.Str("param_string").value_or("-"), "=",
                                e.Str("value_string").value_or("<none>")));
  }
  EXPECT_THAT(rows, ElementsAre("local core.bare=true",
                                "global http.proxy=https://me:<REDACTED>@proxy.example.com/",
                                "command core.bare=x", "command core.flag=<none>",
                                "unknown core.unscoped=u", "command core.later=1",
                                "command TW_TEST_A=a value",
                                "command TW_TEST_B=https://u:<REDACTED>@h/"));
  EXPECT_TRUE(trace->Events("cmd_ancestry").empty()) << "TRACEWIRE_ANCESTRY=0";
}

TEST(ConfigParamsTest, NothingIsReportedWithoutPatterns) {
  const std::string dir = MakeTempDir("noparams");
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}, {"TW_TEST_A", "a"}}),
                                ReportingWorkload);
  ASSERT_TRUE(WIFEXITED(status));
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->Events("def_param").empty());
}

TEST(AncestryTest, ParsesProcStat) {
  auto stat = runtime::ParseProcStat("1234 (bash) S 1000 1234 1234 34816");
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->name, "bash");
  EXPECT_EQ(stat->ppid, 1000);
  // A name with spaces and parentheses ends at the last ')'.
  stat = runtime::ParseProcStat("77 (sshd: u (priv)) S 1 77 77 0");
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->name, "sshd: u (priv)");
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_FALSE(runtime::ParseProcStat("").has_value());
  EXPECT_FALSE(runtime::ParseProcStat("12 bash S 1").has_value());
  EXPECT_FALSE(runtime::ParseProcStat("12 (bash) S x").has_value());
  EXPECT_FALSE(runtime::ParseProcStat("12 (bash)").has_value());
}

TEST(AncestryTest, WalksUpToTheProcessWhoseParentIsZero) {
  const std::string root = MakeTempDir("proc");
  auto entry = [&root](int pid, const std::string& stat) {
    mkdir(absl::StrCat(root, "/", pid).c_str(), 0755);
    WriteFile(absl::StrCat(root, "/", pid, "/stat"), stat);
  };
  entry(30, "30 (make) S 20 30 30 0 -1");
  entry(20, "20 (bash) S 10 20 20 0 -1");
  entry(10, "10 (memfd:sealed-91) S 1 10 10 0 -1");
  entry(1, "1 (process_api) S 0 1 1 0 -1");
  EXPECT_THAT(runtime::ReadAncestry(30, root),
              ElementsAre("make", "bash", "memfd:sealed-91", "process_api"));
  // A missing entry ends the chain; a cycle ends at the limit.
  EXPECT_THAT(runtime::ReadAncestry(40, root), ElementsAre());
  entry(50, "50 (loop) S 50 50 50 0 -1");
  EXPECT_EQ(runtime::ReadAncestry(50, root).size(), static_cast<size_t>(runtime::kMaxAncestors));
}

int StartOnly() {
  tw_initialize_clock();
  tw_initialize();
  const char* argv[] = {"prog", nullptr};
  tw_cmd_start(argv);
  const char* mine[] = {"caller", "list", nullptr};
  tw_cmd_ancestry(mine);  // the caller's list is still recorded
  return tw_cmd_exit(0);
}

TEST(AncestryTest, CmdStartRecordsTheParentChainByDefault) {
  const std::string dir = MakeTempDir("ancestry");
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}}), StartOnly);
  ASSERT_TRUE(WIFEXITED(status));
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  std::vector<std::string> names;
  for (const DecodedEvent& e : trace->AllEvents()) names.push_back(e.name);
  const auto start = std::find(names.begin(), names.end(), "start");
  ASSERT_NE(start, names.end());
  ASSERT_NE(start + 1, names.end());
  EXPECT_EQ(start[1], "cmd_ancestry") << "right after start, as git";
  const std::vector<DecodedEvent> ancestry = trace->Events("cmd_ancestry");
  ASSERT_EQ(ancestry.size(), 2u);
  // The child's parent is this test process: its chain is ours.
  std::vector<std::string> expected = runtime::ReadAncestry(getpid());
  ASSERT_FALSE(expected.empty());
  std::string list;
  for (const std::string& name : expected) absl::StrAppend(&list, name, std::string(1, '\0'));
  EXPECT_EQ(ancestry[0].Str("ancestry_strlist"), list);
  EXPECT_EQ(ancestry[1].Str("ancestry_strlist"), std::string("caller\0list\0", 12));
}

}  // namespace
}  // namespace tracewire::testing
