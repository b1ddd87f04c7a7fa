// A flight-recorder dump read by the command: it decodes and validates like any trace,
// from its first kept generation (an open region re-stated, no error), and `stats` names
// it a dump and gives the time span it covers.
#include <dirent.h>

#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;

// Runs the program in flight-recorder mode with a ring much smaller than what it records;
// returns the path of its one dump.
std::string MakeDump(const std::string& name) {
  const std::string dir = NewTempDir(name);
  RunOptions options;
  options.env = {{"TRACEWIRE", dir}, {"TRACEWIRE_FLIGHT_RECORDER", "256K"}};
  const CommandResult r = RunCommand({Runfile("tests/cli/flight_program"), "200000"}, options);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string found;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      if (absl::EndsWith(entry->d_name, ".flight-1")) found = dir + "/" + entry->d_name;
    }
    closedir(d);
  }
  EXPECT_FALSE(found.empty()) << "no dump in " << dir;
  return found;
}

TEST(FlightDumpTest, StatsNameADumpAndItsSpan) {
  const std::string dump = MakeDump("flight_stats");
  const CommandResult r = RunCommand({Tracewire(), "stats", dump});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("flight-recorder dump: covers "));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(
                         R"(covers [0-9]+\.[0-9]{6} s, from [0-9T:.-]+Z to [0-9T:.-]+Z)"));
}

TEST(FlightDumpTest, DumpShowsTheHeaderFlag) {
  const std::string dump = MakeDump("flight_frames");
  const CommandResult r = RunCommand({Tracewire(), "dump", dump});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              ::testing::StartsWith("00000000 file_header version=4 flight_recorder_dump\n"));
}

TEST(FlightDumpTest, StreamedTraceIsNotCalledADump) {
  const std::string dir = NewTempDir("flight_streamed");
  RunOptions options;
  options.env = {{"TRACEWIRE", dir + "/trace.tw"}};
  ASSERT_EQ(RunCommand({Runfile("tests/cli/flight_program"), "1000"}, options).exit_code, 1);
  const CommandResult r = RunCommand({Tracewire(), "stats", dir + "/trace.tw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("flight-recorder dump")));
}

TEST(FlightDumpTest, DecodesFromTheFirstKeptGeneration) {
  const std::string dump = MakeDump("flight_decode");
  const CommandResult validate = RunCommand({Tracewire(), "validate", dump});
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  const CommandResult r = RunCommand({Tracewire(), "decode", "--format=event", dump});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // The last value before the dump is there; the first ones (dropped with their
  // generations) and the version event of the first generation are not.
  EXPECT_THAT(r.out, HasSubstr(R"("key":"seq","value":"199999")"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr(R"("key":"seq","value":"0")")));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr(R"("event":"version")")));
  // Data inside the re-stated region "outer" is nested one deep.
  EXPECT_THAT(r.out, HasSubstr(R"("nesting":2,"category":"work","key":"seq")"));
}

}  // namespace
}  // namespace tracewire::cli_test
