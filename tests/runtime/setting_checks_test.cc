// Every documented setting with a bad value, through every source it can come from (the
// environment, the user settings file, the system settings file, a program's tw_settings):
// one warning naming the setting and its source, and the documented fallback.
#include "runtime/setting_checks.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/settings_file.h"
#include "runtime/stack_events.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"

namespace tracewire::testing {
namespace {

using runtime::SettingSource;

// One setting given a value that is not valid, and what the runtime must do about it.
struct BadSetting {
  const char* name;
  const char* value;
  const char* echoed;    // the part of the value the warning quotes
  const char* fallback;  // the warning's "; ..." part ("" for none)
  bool tracing_stays_on;
  // True if LoadSettings' result took the fallback.
  std::function<bool(const tw_settings&, bool refused)> fell_back;
};

const std::vector<BadSetting>& BadSettings() {
  static const std::vector<BadSetting> settings = {
      {"TRACEWIRE_GENERATION_MS", "1s", "1s",
       "using the default, 1000 (a positive whole number is expected)", true,
       [](const tw_settings& s, bool) { return s.generation_ms == 0; }},
      {"TRACEWIRE_GENERATION_BYTES", "8MB", "8MB",
       "using the default, 8 MiB (a positive whole number is expected)", true,
       [](const tw_settings& s, bool) { return s.generation_bytes == 0; }},
      {"TRACEWIRE_WRITE_TIMEOUT_MS", "0", "0",
       "using the default, 1000 (a positive whole number is expected)", true,
       [](const tw_settings& s, bool) { return s.write_timeout_ms == 0; }},
      {"TRACEWIRE_COMPRESS", "zstd", "zstd",
       "using the default, 0 (1, true, yes, on or 0, false, no, off is expected)", true,
       [](const tw_settings& s, bool) { return s.compress == 0; }},
      {"TRACEWIRE_REDACT", "sometimes", "sometimes",
       "using the default, 1 (1, true, yes, on or 0, false, no, off is expected)", true,
       [](const tw_settings& s, bool) { return s.no_redact == 0; }},
      {"TRACEWIRE_ANCESTRY", "2", "2",
       "using the default, 1 (1, true, yes, on or 0, false, no, off is expected)", true,
       [](const tw_settings& s, bool) { return s.no_ancestry == 0; }},
      {"TRACEWIRE_FLIGHT_ON_ERROR", "first", "first",
       "using the default, 0 (1, true, yes, on or 0, false, no, off is expected)", true,
       [](const tw_settings& s, bool) { return s.flight_on_error == 0; }},
      {"TRACEWIRE_CPU_PROFILE", "20000", "20000",
       "no CPU profile (a rate from 1 to 10000 samples per second, or 0, is expected)", true,
       [](const tw_settings& s, bool) { return s.cpu_profile_hz == 0; }},
      {"TRACEWIRE_CPU_PROFILE", "100Hz", "100Hz",
       "no CPU profile (a rate from 1 to 10000 samples per second, or 0, is expected)", true,
       [](const tw_settings& s, bool) { return s.cpu_profile_hz == 0; }},
      {"TRACEWIRE_MAX_FILES", "-1", "-1",
       "using the default, 0 (no cap; a whole number of files is expected)", true,
       [](const tw_settings& s, bool) { return s.max_files == 0; }},
      {"TRACEWIRE_STACKS", "data, bogus,region_enter,data_int", "bogus,data_int",
       "ignored (the events that record a stack: error, child_start, region_enter, "
       "region_leave, data, data_json, printf)",
       true,
       [](const tw_settings& s, bool) {
         return s.stack_events != nullptr && absl::StrContains(s.stack_events, "bogus");
       }},
      {"TRACEWIRE_FLIGHT_SIGNAL", "HUP", "HUP", "no signal dumps (USR1 or USR2 is expected)", true,
       [](const tw_settings& s, bool) { return s.flight_signal == 0; }},
      {"TRACEWIRE_FLIGHT_RECORDER", "16Q", "16Q",
       "tracing is off (a size such as 16M, at most 1024G, is expected)", false,
       [](const tw_settings& s, bool refused) { return refused && s.flight_recorder_bytes == 0; }},
      {"TRACEWIRE_DST_DEBUG", "loud", "loud", "using the default, 0 (a number is expected)", false,
       nullptr},
      {"TRACEWIRE", "relative/path", "relative/path", "", false, nullptr},
  };
  return settings;
}

enum class Source { kEnvironment, kUserFile, kSystemFile };

const char* SourceName(Source source) {
  switch (source) {
    case Source::kEnvironment:
      return "environment";
    case Source::kUserFile:
      return "user file";
    case Source::kSystemFile:
      return "system file";
  }
  return "?";
}

// A child's setup: its environment, the system file it reads, the warning expected.
struct Placement {
  std::map<std::string, std::string> env;
  std::string system_path;
  std::string expected_warning;
};

// Puts `bad` into `source` (a file holds it on line 2); the target is a fresh directory in
// the environment (or, for TRACEWIRE_DST_DEBUG, a path that cannot be opened).
Placement Place(const BadSetting& bad, Source source, const std::string& dir) {
  Placement placement;
  const std::string traces = dir + "/traces";
  mkdir(traces.c_str(), 0755);
  std::map<std::string, std::string> env;
  if (std::string(bad.name) == "TRACEWIRE_DST_DEBUG") {
    env["TRACEWIRE"] = dir + "/missing/trace";
  } else if (std::string(bad.name) != "TRACEWIRE") {
    env["TRACEWIRE"] = traces;
  }
  placement.system_path = dir + "/no-system-file";
  std::string prefix;
  const std::string file_text =
      absl::StrCat("# tracewire settings\n", bad.name, " = ", bad.value, "\n");
  switch (source) {
    case Source::kEnvironment:
      env[bad.name] = bad.value;
      break;
    case Source::kUserFile: {
      mkdir((dir + "/xdg").c_str(), 0755);
      mkdir((dir + "/xdg/tracewire").c_str(), 0755);
      const std::string path = dir + "/xdg/tracewire/config";
      WriteFile(path, file_text);
      env["XDG_CONFIG_HOME"] = dir + "/xdg";
      prefix = absl::StrCat("settings file '", path, "': line 2: ");
      break;
    }
    case Source::kSystemFile:
      placement.system_path = dir + "/tracewire.conf";
      WriteFile(placement.system_path, file_text);
      prefix = absl::StrCat("settings file '", placement.system_path, "': line 2: ");
      break;
  }
  placement.env = ChildEnv(env);
  placement.expected_warning =
      absl::StrCat("warning: tracewire: ", prefix, "unknown value for '", bad.name, "': '",
                   bad.echoed, "'", *bad.fallback == '\0' ? "" : "; ", bad.fallback, "\n");
  return placement;
}

constexpr Source kSources[] = {Source::kEnvironment, Source::kUserFile, Source::kSystemFile};

// tw_initialize (twice) warns once, naming the source, and tracing is on or off as
// documented.
TEST(SettingChecksTest, EveryBadSettingWarnsOnceFromEverySource) {
  for (const BadSetting& bad : BadSettings()) {
    for (Source source : kSources) {
      SCOPED_TRACE(absl::StrCat(bad.name, " from the ", SourceName(source)));
      const std::string dir = MakeTempDir("bad_setting");
      const Placement placement = Place(bad, source, dir);
      const std::string err = dir + "/stderr";
      const int status = RunInChild(placement.env, [&] {
        StderrTo(err);
        runtime::SetSystemSettingsPathForTesting(placement.system_path.c_str());
        tw_initialize_clock();
        tw_initialize();
        tw_initialize();
        return tw_is_enabled() ? 1 : 0;
      });
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), bad.tracing_stays_on ? 1 : 0);
      EXPECT_EQ(ReadFile(err), placement.expected_warning);
    }
  }
}

// LoadSettings gives the documented fallback for each bad value.
TEST(SettingChecksTest, EveryBadSettingTakesItsFallback) {
  for (const BadSetting& bad : BadSettings()) {
    if (bad.fell_back == nullptr) continue;
    for (Source source : kSources) {
      SCOPED_TRACE(absl::StrCat(bad.name, " from the ", SourceName(source)));
      const std::string dir = MakeTempDir("fallback");
      const Placement placement = Place(bad, source, dir);
      const std::string err = dir + "/stderr";
      const int status = RunInChild(placement.env, [&] {
        StderrTo(err);
        runtime::SetSystemSettingsPathForTesting(placement.system_path.c_str());
        bool refused = false;
        const tw_settings settings = runtime::LoadSettings(&refused);
        return bad.fell_back(settings, refused) ? 0 : 1;
      });
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 0);
      EXPECT_EQ(ReadFile(err), placement.expected_warning);
    }
  }
}

// TRACEWIRE_CLOCK is read from the environment only (a settings file cannot set it).
TEST(SettingChecksTest, BadClockWarnsAndTracingGoesOn) {
  const std::string dir = MakeTempDir("clock");
  const std::string err = dir + "/stderr";
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}, {"TRACEWIRE_CLOCK", "rdtsc"}}), [&] {
    StderrTo(err);
    tw_initialize_clock();
    tw_initialize();
    return tw_is_enabled() ? 1 : 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(ReadFile(err),
            "warning: tracewire: unknown value for 'TRACEWIRE_CLOCK': 'rdtsc'; using the "
            "default, tsc (monotonic or tsc is expected)\n");
}

// The valid spellings warn about nothing.
TEST(SettingChecksTest, GoodValuesWarnAboutNothing) {
  const std::string dir = MakeTempDir("good");
  const std::string err = dir + "/stderr";
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir},
                                          {"TRACEWIRE_GENERATION_MS", "250"},
                                          {"TRACEWIRE_GENERATION_BYTES", "1048576"},
                                          {"TRACEWIRE_WRITE_TIMEOUT_MS", "500"},
                                          {"TRACEWIRE_COMPRESS", "Yes"},
                                          {"TRACEWIRE_REDACT", "on"},
                                          {"TRACEWIRE_ANCESTRY", "FALSE"},
                                          {"TRACEWIRE_MAX_FILES", "0"},
                                          {"TRACEWIRE_STACKS", " data , region_enter,,printf"},
                                          {"TRACEWIRE_FLIGHT_RECORDER", "0"},
                                          {"TRACEWIRE_FLIGHT_SIGNAL", "SIGUSR2"},
                                          {"TRACEWIRE_FLIGHT_ON_ERROR", "off"},
                                          {"TRACEWIRE_CPU_PROFILE", "100"},
                                          {"TRACEWIRE_DST_DEBUG", "0"},
                                          {"TRACEWIRE_CLOCK", "monotonic"}}),
                                [&] {
                                  StderrTo(err);
                                  tw_initialize_clock();
                                  tw_initialize();
                                  return tw_is_enabled() ? 1 : 0;
                                });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_EQ(ReadFile(err), "");
}

// A program's tw_settings: each field out of range warns once, named tw_settings.FIELD.
TEST(SettingChecksTest, ProgramSettingsAreCheckedToo) {
  struct BadField {
    std::function<void(tw_settings*)> spoil;
    std::string warning;
    bool tracing_stays_on;
  };
  const std::vector<BadField> fields = {
      {[](tw_settings* s) { s->stack_events = "region_enter,bogus"; },
       "warning: tracewire: unknown value for 'tw_settings.stack_events': 'bogus'; ignored (the "
       "events that record a stack: error, child_start, region_enter, region_leave, data, "
       "data_json, printf)\n",
       true},
      {[](tw_settings* s) { s->max_files = -3; },
       "warning: tracewire: unknown value for 'tw_settings.max_files': '-3'; using the default, "
       "0 (no cap)\n",
       true},
      {[](tw_settings* s) { s->write_timeout_ms = -1; },
       "warning: tracewire: unknown value for 'tw_settings.write_timeout_ms': '-1'; using the "
       "default, 1000\n",
       true},
      {[](tw_settings* s) { s->flight_signal = SIGHUP; },
       absl::StrCat("warning: tracewire: unknown value for 'tw_settings.flight_signal': '", SIGHUP,
                    "'; no signal dumps (SIGUSR1 or SIGUSR2 is expected)\n"),
       true},
      {[](tw_settings* s) { s->cpu_profile_hz = 20000; },
       "warning: tracewire: unknown value for 'tw_settings.cpu_profile_hz': '20000'; no CPU "
       "profile (a rate from 1 to 10000 samples per second, or 0, is expected)\n",
       true},
      {[](tw_settings* s) { s->target = "relative/path"; },
       "warning: tracewire: unknown value for 'tw_settings.target': 'relative/path'\n", false},
  };
  for (const BadField& field : fields) {
    SCOPED_TRACE(field.warning);
    const std::string dir = MakeTempDir("program");
    const std::string err = dir + "/stderr";
    const int status = RunInChild(ChildEnv({}), [&] {
      StderrTo(err);
      tw_settings settings{};
      settings.target = dir.c_str();
      field.spoil(&settings);
      tw_initialize_clock();
      tw_initialize_with(&settings);
      tw_initialize_with(&settings);
      return tw_is_enabled() ? 1 : 0;
    });
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), field.tracing_stays_on ? 1 : 0);
    EXPECT_EQ(ReadFile(err), field.warning);
  }
}

TEST(SettingChecksTest, WarningsDoNotEchoUnprintableOrLongValues) {
  SettingSource source;
  source.kind = SettingSource::Kind::kEnvironment;
  source.name = "TRACEWIRE_COMPRESS";
  EXPECT_EQ(runtime::BadSettingWarning(source, "a\033[2Jb", "using the default, 0"),
            "warning: tracewire: unknown value for 'TRACEWIRE_COMPRESS' (6 bytes, not shown); "
            "using the default, 0\n");
  EXPECT_EQ(runtime::BadSettingWarning(source, std::string(300, 'x'), ""),
            "warning: tracewire: unknown value for 'TRACEWIRE_COMPRESS' (300 bytes, not shown)\n");
}

TEST(StackEventsTest, UserFacingNamesSelectTheirRows) {
  uint64_t mask[4] = {};
  std::vector<std::string> unknown;
  runtime::AddStackEvents("data, region_leave ,, data_int,start", mask, &unknown);
  auto has = [&mask](format::EventType type) {
    const unsigned t = static_cast<unsigned>(type);
    return ((mask[t >> 6] >> (t & 63)) & 1) != 0;
  };
  EXPECT_TRUE(has(format::EventType::kData));
  EXPECT_TRUE(has(format::EventType::kDataInt)) << "data covers tw_data_intmax";
  EXPECT_TRUE(has(format::EventType::kRegionLeave));
  EXPECT_FALSE(has(format::EventType::kRegionEnter));
  EXPECT_FALSE(has(format::EventType::kStart));
  EXPECT_THAT(unknown, ::testing::ElementsAre("data_int", "start"));
}

// TRACEWIRE_STACKS=data records a stack for tw_data_string and tw_data_intmax alike.
TEST(StackEventsTest, DataCapturesStacksForStringAndIntegerData) {
  const std::string dir = MakeTempDir("data_stacks");
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}, {"TRACEWIRE_STACKS", "data"}}), [] {
    tw_initialize_clock();
    tw_initialize();
    tw_data_string("c", TW_NO_REPO, "text", "v");
    tw_data_intmax("c", TW_NO_REPO, "number", 7);
    tw_data_json("c", TW_NO_REPO, "json", "{}");
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  std::vector<std::string> names;
  for (const DecodedEvent& e : trace->AllEvents()) {
    if (e.name == "stack_ref" || absl::StartsWith(e.name, "data")) names.push_back(e.name);
  }
  EXPECT_THAT(names,
              ::testing::ElementsAre("stack_ref", "data", "stack_ref", "data_int", "data_json"));
}

}  // namespace
}  // namespace tracewire::testing
