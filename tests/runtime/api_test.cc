// Every API call produces the expected events, checked with format/'s decoder.
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

namespace tracewire::testing {
namespace {

std::vector<std::string> List(const std::optional<std::string>& bytes) {
  std::vector<std::string> items;
  if (!bytes.has_value()) return items;
  absl::string_view rest = *bytes;
  while (!rest.empty()) {
    const size_t nul = rest.find('\0');
    items.emplace_back(rest.substr(0, nul));
    rest.remove_prefix(nul + 1);
  }
  return items;
}

int EveryApiCall() {
  tw_initialize_clock();
  tw_initialize();
  const char* argv[] = {"prog", "https://me:pw@example.com/x", "plain", nullptr};
  tw_cmd_start(argv);
  const char* ancestry[] = {"bash", "sshd", nullptr};
  tw_cmd_ancestry(ancestry);
  tw_cmd_name("sub");
  tw_cmd_mode("fast");
  tw_cmd_path("/usr/bin/prog");
  const char* alias_argv[] = {"status", "-s", nullptr};
  tw_cmd_alias("st", alias_argv);
  tw_def_param("core.x", "https://a:b@h/p", "global");
  tw_def_param("flag.novalue", nullptr, "command");
  const int repo = tw_def_repo("/work/tree");
  tw_region_enter("cat", "lab", repo);
  tw_data_string("cat", repo, "key", "value");
  tw_data_intmax("cat", TW_NO_REPO, "count", -42);
  tw_data_json("cat", repo, "obj", "{\"a\": [1, 2]}");
  tw_region_enter_printf("cat", "printf_label", TW_NO_REPO, "item %d of %s", 3, "x");
  tw_region_leave_printf("cat", "printf_label", TW_NO_REPO, "%s", "");
  tw_region_leave("cat", "lab", repo);
  tw_printf("hello %s", "world");
  tw_cmd_error("bad %s", "thing");
  const char* child_argv[] = {"rev-parse", "HEAD", nullptr};
  tw_child child{};
  child.argv = child_argv;
  child.child_class = "hook";
  child.hook_name = "pre-commit";
  child.dir = "sub dir";
  child.use_shell = 1;
  child.git_cmd = 1;
  tw_child_start(&child);
  child.pid = 4242;
  tw_child_ready(&child, "timeout");
  tw_child_exit(&child, 3);
  const char* exec_argv[] = {"git", "version", nullptr};
  const int exec_id = tw_exec("/usr/bin/git", exec_argv);
  tw_exec_result(exec_id, -1);
  const int timer = tw_timer_define("test", "t1", 1);
  const int counter = tw_counter_define("test", "c1", 1);
  std::thread worker([&] {
    tracewire::ThreadScope scope("worker_with_a_very_long_name");
    tw_timer_start(timer);
    tw_timer_stop(timer);
    tw_counter_add(counter, 5);
  });
  worker.join();
  tw_timer_start(timer);
  tw_timer_stop(timer);
  tw_counter_add(counter, 7);
  return tw_cmd_exit(9);
}

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("api");
    const int status = RunInChild({{"TRACEWIRE", dir_},
                                   {"TRACEWIRE_APP_VERSION", "1.2.3"},
                                   {"TRACEWIRE_PARENT_SID", ""},
                                   {"TRACEWIRE_PARENT_NAME", "outer"},
                                   {"TRACEWIRE_ANCESTRY", "0"},  // only the explicit list
                                   // generations cut by tw_exec only (a slow run, under a
                                   // sanitizer or an emulator, would get time cuts too)
                                   {"TRACEWIRE_GENERATION_MS", "3600000"}},
                                  EveryApiCall);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 9);
    absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir_));
    ASSERT_TRUE(trace.ok()) << trace.status();
    trace_ = *trace;
    ASSERT_TRUE(trace_.tail_status.ok()) << trace_.tail_status;
    ASSERT_EQ(trace_.complete_bytes, trace_.total_bytes);
  }

  DecodedEvent One(absl::string_view name) {
    std::vector<DecodedEvent> events = trace_.Events(name);
    EXPECT_EQ(events.size(), 1u) << name;
    return events.empty() ? DecodedEvent() : events[0];
  }

  std::string dir_;
  DecodedTrace trace_;
};

TEST_F(ApiTest, OrderOfMainThreadEvents) {
  // tw_exec writes the generation out (the exec may replace the process), so there are two
  // generations, and each re-states the main thread first.
  ASSERT_EQ(trace_.generations.size(), 2u);
  std::vector<std::string> names;
  for (const DecodedGeneration& gen : trace_.generations) {
    bool first = true;
    for (const DecodedEvent& e : gen.events) {
      if (e.thread != 0) continue;
      if (first) {
        EXPECT_EQ(e.name, "thread_status") << "generation " << gen.gen;
        first = false;
        continue;
      }
      names.push_back(e.name);
    }
  }
  const std::vector<std::string> expected = {
      "version",     "start",        "cmd_ancestry", "cmd_name",
      "cmd_mode",      "cmd_path",    "alias",        "def_param",    "def_param",
      "def_repo",      "region_enter", "data",        "data_int",     "data_json",
      "region_enter",  "region_leave", "region_leave", "printf",      "error",
      "child_start",   "child_ready", "child_exit",   "exec",         "exec_result",
      "exit",          "th_timer",    "th_counter",   "timer",        "counter",
      "atexit"};
  EXPECT_EQ(names, expected);
}

TEST_F(ApiTest, IdentityAndVersion) {
  ASSERT_FALSE(trace_.generations.empty());
  const DecodedGeneration& gen = trace_.generations.back();
  EXPECT_EQ(gen.clock_syncs, 1);
  EXPECT_GT(gen.sync.freq, 0u);
  EXPECT_EQ(gen.sid.find('/'), std::string::npos);
  EXPECT_EQ(OnlyFileIn(dir_), dir_ + "/" + gen.sid);  // named after the sid
  EXPECT_EQ(gen.cmd_name, "sub");
  const DecodedEvent version = One("version");
  EXPECT_EQ(version.Str("exe_string"), "1.2.3");
  EXPECT_EQ(version.site.file.value_or(""), __FILE__);
  const DecodedEvent status = trace_.Events("thread_status")[0];
  EXPECT_EQ(status.Str("name_string"), "main");
  EXPECT_EQ(status.Arg("start_time"), gen.start_time);
}

TEST_F(ApiTest, CommandEvents) {
  EXPECT_EQ(List(One("start").Str("argv_strlist")),
            (std::vector<std::string>{"prog", "https://me:<REDACTED>@example.com/x", "plain"}));
  EXPECT_EQ(List(One("cmd_ancestry").Str("ancestry_strlist")),
            (std::vector<std::string>{"bash", "sshd"}));
  const DecodedEvent name = One("cmd_name");
  EXPECT_EQ(name.Str("name_string"), "sub");
  EXPECT_EQ(name.Str("hierarchy_string"), "outer/sub");
  EXPECT_EQ(One("cmd_mode").Str("mode_string"), "fast");
  EXPECT_EQ(One("cmd_path").Str("path_string"), "/usr/bin/prog");
  const DecodedEvent alias = One("alias");
  EXPECT_EQ(alias.Str("alias_string"), "st");
  EXPECT_EQ(List(alias.Str("argv_strlist")), (std::vector<std::string>{"status", "-s"}));
  const std::vector<DecodedEvent> params = trace_.Events("def_param");
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].Str("scope_string"), "global");
  EXPECT_EQ(params[0].Str("param_string"), "core.x");
  EXPECT_EQ(params[0].Str("value_string"), "https://a:<REDACTED>@h/p");
  EXPECT_EQ(params[1].Str("value_string"), std::nullopt);
  const DecodedEvent repo = One("def_repo");
  EXPECT_EQ(repo.Arg("repo_id"), 1u);
  EXPECT_EQ(repo.Str("worktree_string"), "/work/tree");
  EXPECT_EQ(repo.site.repo, 2u);  // repo id 1, stored plus one
  EXPECT_EQ(format::ZigzagDecode(One("exit").Arg("code")), 9);
  EXPECT_EQ(format::ZigzagDecode(One("atexit").Arg("code")), 9);
  const DecodedEvent error = One("error");
  EXPECT_EQ(error.Str("msg_string"), "bad thing");
  EXPECT_EQ(error.Str("fmt_string"), "bad %s");
  EXPECT_EQ(One("printf").Str("msg_string"), "hello world");
}

TEST_F(ApiTest, RegionsAndData) {
  const std::vector<DecodedEvent> enters = trace_.Events("region_enter");
  ASSERT_EQ(enters.size(), 2u);
  EXPECT_EQ(enters[0].site.category, "cat");
  EXPECT_EQ(enters[0].site.label, "lab");
  EXPECT_EQ(enters[0].site.repo, 2u);
  EXPECT_EQ(enters[0].Str("msg_string"), std::nullopt);
  EXPECT_EQ(enters[1].site.label, "printf_label");
  EXPECT_EQ(enters[1].Str("msg_string"), "item 3 of x");
  const std::vector<DecodedEvent> leaves = trace_.Events("region_leave");
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_EQ(leaves[0].Str("msg_string"), "");  // "%s" of "" is an empty message, not none
  EXPECT_EQ(leaves[1].site.label, "lab");
  const DecodedEvent data = One("data");
  EXPECT_EQ(data.site.category, "cat");
  EXPECT_EQ(data.site.label, "key");
  EXPECT_EQ(data.Str("value_string"), "value");
  const DecodedEvent data_int = One("data_int");
  EXPECT_EQ(format::ZigzagDecode(data_int.Arg("value")), -42);
  EXPECT_EQ(data_int.site.repo, 0u);
  EXPECT_EQ(One("data_json").Str("json_string"), "{\"a\": [1, 2]}");
}

TEST_F(ApiTest, ChildAndExec) {
  const DecodedEvent start = One("child_start");
  EXPECT_EQ(start.Arg("child_id"), 0u);
  EXPECT_EQ(start.Str("class_string"), "hook");
  EXPECT_EQ(start.Str("hook_string"), "pre-commit");
  EXPECT_EQ(start.Str("cd_string"), "sub dir");
  EXPECT_EQ(start.Arg("flags"), format::kChildFlagUseShell | format::kChildFlagGitCommand);
  EXPECT_EQ(List(start.Str("argv_strlist")), (std::vector<std::string>{"rev-parse", "HEAD"}));
  const DecodedEvent ready = One("child_ready");
  EXPECT_EQ(ready.Arg("ready"), format::kChildReadyTimeout);
  EXPECT_EQ(format::ZigzagDecode(ready.Arg("pid")), 4242);
  const DecodedEvent exit = One("child_exit");
  EXPECT_EQ(format::ZigzagDecode(exit.Arg("code")), 3);
  EXPECT_EQ(exit.Arg("elapsed"), exit.time - start.time);
  const DecodedEvent exec = One("exec");
  EXPECT_EQ(exec.Arg("exec_id"), 0u);
  EXPECT_EQ(exec.Str("exe_string"), "/usr/bin/git");
  EXPECT_EQ(List(exec.Str("argv_strlist")), (std::vector<std::string>{"git", "version"}));
  EXPECT_EQ(format::ZigzagDecode(One("exec_result").Arg("code")), -1);
}

TEST_F(ApiTest, ThreadsTimersCounters) {
  const DecodedEvent start = One("thread_start");
  EXPECT_EQ(start.Str("name_string"), "th01:worker_with_a_very_");  // cut to 24 bytes
  EXPECT_EQ(start.thread, 1u);
  // The kernel thread ids: the worker's own, not main's (tests/perfetto/thread_ids_test
  // compares them with what gettid() gave each thread).
  const DecodedEvent main_status = trace_.Events("thread_status")[0];
  EXPECT_NE(start.Arg("tid"), 0u);
  EXPECT_NE(main_status.Arg("tid"), 0u);
  EXPECT_NE(start.Arg("tid"), main_status.Arg("tid"));
  const std::vector<DecodedEvent> th_timers = trace_.Events("th_timer");
  ASSERT_EQ(th_timers.size(), 2u);  // the worker's, then main's at exit
  EXPECT_EQ(th_timers[0].thread, 1u);
  EXPECT_EQ(th_timers[0].Arg("intervals"), 1u);
  EXPECT_EQ(th_timers[0].site.category, "test");
  EXPECT_EQ(th_timers[0].site.label, "t1");
  const std::vector<DecodedEvent> th_counters = trace_.Events("th_counter");
  ASSERT_EQ(th_counters.size(), 2u);
  EXPECT_EQ(th_counters[0].Arg("value"), 5u);
  EXPECT_EQ(th_counters[1].Arg("value"), 7u);
  const DecodedEvent timer = One("timer");
  EXPECT_EQ(timer.Arg("intervals"), 2u);
  EXPECT_GE(timer.Arg("total"), timer.Arg("max"));
  EXPECT_LE(timer.Arg("min"), timer.Arg("max"));
  EXPECT_EQ(One("counter").Arg("value"), 12u);
  const DecodedEvent exit = One("thread_exit");
  EXPECT_EQ(exit.thread, 1u);
}

TEST_F(ApiTest, TimesStrictlyIncreasePerThread) {
  std::map<uint64_t, uint64_t> last;
  for (const DecodedEvent& e : trace_.AllEvents()) {
    EXPECT_GT(e.time, last[e.thread]) << e.name;
    last[e.thread] = e.time;
  }
}

// The seconds from tw_initialize_clock() to the `start` event of a child that waits 30 ms
// between tw_initialize_clock() and tw_initialize(), on the clock TRACEWIRE_CLOCK chooses.
// Also returns the trace clock's rate.
std::pair<double, uint64_t> SecondsFromClockToStart(const std::string& clock) {
  const std::string dir = MakeTempDir("clock");
  const int status = RunInChild({{"TRACEWIRE", dir}, {"TRACEWIRE_CLOCK", clock}}, [] {
    tw_initialize_clock();
    usleep(30'000);
    tw_initialize();
    const char* argv[] = {"prog", nullptr};
    tw_cmd_start(argv);
    return tw_cmd_exit(0);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (!trace.ok() || trace->generations.empty() || trace->Events("start").size() != 1) return {};
  const DecodedGeneration& gen = trace->generations[0];
  const uint64_t start = trace->Events("start")[0].time;
  return {static_cast<double>(start - gen.start_time) / static_cast<double>(gen.sync.freq),
          gen.sync.freq};
}

// The origin of t_abs is tw_initialize_clock() with either clock, although an untraced
// process chooses no clock there (it reads the TSC, or CLOCK_MONOTONIC when asked for).
TEST(ClockTest, TheStartInstantIsTwInitializeClockOnEitherClock) {
  const auto [tsc_seconds, tsc_rate] = SecondsFromClockToStart("");
  EXPECT_GE(tsc_seconds, 0.029);
  EXPECT_LT(tsc_seconds, 60.0);  // not a far older origin (the boot); a loaded machine is slow
  const auto [monotonic_seconds, monotonic_rate] = SecondsFromClockToStart("monotonic");
  EXPECT_EQ(monotonic_rate, 1'000'000'000u);
  EXPECT_GE(monotonic_seconds, 0.029);
  EXPECT_LT(monotonic_seconds, 60.0);
}

// The `version` event's exe: tw_initialize_with's app_version, else TRACEWIRE_APP_VERSION,
// else "0". The event carries tw_initialize_with's call site.
std::string VersionExe(const char* app_version, const std::string& environment_version) {
  const std::string dir = MakeTempDir("version");
  const int status = RunInChild({{"TRACEWIRE_APP_VERSION", environment_version}}, [&] {
    tw_settings settings{};
    settings.target = dir.c_str();
    settings.app_version = app_version;
    if (tw_initialize_with(&settings) != 0) return 1;
    return tw_cmd_exit(0);
  });
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (!trace.ok() || trace->Events("version").size() != 1) return "<no version event>";
  const DecodedEvent version = trace->Events("version")[0];
  EXPECT_EQ(version.site.file.value_or(""), __FILE__);  // the call site, not the runtime's
  return version.Str("exe_string").value_or("<no exe>");
}

TEST(VersionTest, TheProgramsVersionComesFromTheSettingsThenTheEnvironment) {
  EXPECT_EQ(VersionExe("4.5.6", "9.9"), "4.5.6");
  EXPECT_EQ(VersionExe(nullptr, "9.9"), "9.9");
  EXPECT_EQ(VersionExe(nullptr, ""), "0");
}

}  // namespace
}  // namespace tracewire::testing
