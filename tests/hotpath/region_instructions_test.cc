// The region hot path's length in instructions, checked against a committed baseline:
// region_loop runs a fixed loop of region_enter/region_leave pairs through the macros at
// a literal call site, under callgrind, which counts the instructions executed inside
// RegionLoop (the loop, the macros' inline tests and the calls, slow paths amortised).
// An instruction count does not depend on the machine's load, unlike a time.
//
// It fails when the count per event grows more than 10 % over
// tests/hotpath/region_instructions_baseline.txt; the message says how to update it.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "tests/runtime/trace_file.h"

namespace {

using tracewire::testing::DecodedEvent;
using tracewire::testing::DecodeTraceFile;

constexpr const char* kValgrind = "/usr/bin/valgrind";
constexpr const char* kBaselineFile = "tests/hotpath/region_instructions_baseline.txt";
constexpr long kPairs = 50'000;          // region_enter + region_leave pairs in the loop
constexpr double kAllowedGrowth = 0.10;  // fail above baseline * (1 + this)

std::string RunfilePath(const std::string& path) {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return path;
  return absl::StrCat(srcdir, "/", workspace, "/", path);
}

std::string TempPath(const std::string& name) {
  const char* dir = getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", name);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// Runs `argv` with stdout into `out_path`; returns its exit status (-1 if it did not start
// or did not exit normally).
int RunProgram(const std::vector<std::string>& args, const std::string& out_path) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// The baseline: the first line of the file that is not a comment.
double ReadBaseline() {
  std::istringstream in(ReadFile(RunfilePath(kBaselineFile)));
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#') continue;
    double value = 0;
    if (absl::SimpleAtod(text, &value)) return value;
  }
  return 0;
}

// The "summary: N" line of a callgrind output file (the instructions collected).
long long CollectedInstructions(const std::string& callgrind_out) {
  for (absl::string_view line : absl::StrSplit(ReadFile(callgrind_out), '\n')) {
    long long value = 0;
    if (absl::ConsumePrefix(&line, "summary: ") && absl::SimpleAtoi(line, &value)) return value;
  }
  return -1;
}

TEST(RegionInstructionsTest, PerEventWithinTenPercentOfBaseline) {
  ASSERT_EQ(access(kValgrind, X_OK), 0)
      << kValgrind << " is missing: install/install_deps.sh installs valgrind";
  const double baseline = ReadBaseline();
  ASSERT_GT(baseline, 0) << "no baseline in " << kBaselineFile;

  const std::string trace = TempPath("region_loop.tw");
  const std::string callgrind_out = TempPath("region_loop.callgrind");
  const std::string stdout_path = TempPath("region_loop.out");
  const int status =
      RunProgram({kValgrind, "--tool=callgrind", "--callgrind-out-file=" + callgrind_out,
                  "--toggle-collect=RegionLoop", RunfilePath("tests/hotpath/region_loop"), trace,
                  std::to_string(kPairs)},
                 stdout_path);
  ASSERT_EQ(status, 0) << "valgrind --tool=callgrind region_loop failed";
  const std::string clock = ReadFile(stdout_path);
  if (clock != "clock counter\n") {
    // The instructions of another clock path (CLOCK_MONOTONIC) are not what the baseline
    // counts; this machine's CPU does not report an invariant TSC to the program.
    GTEST_SKIP() << "the trace clock is not the counter here (" << clock << ")";
  }

  // Every event was recorded: a path that dropped events would be short for nothing.
  const auto decoded = DecodeTraceFile(trace);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ASSERT_TRUE(decoded->tail_status.ok()) << decoded->tail_status;
  for (const char* name : {"region_enter", "region_leave"}) {
    const std::vector<DecodedEvent> events = decoded->Events(name);
    ASSERT_EQ(events.size(), static_cast<size_t>(kPairs)) << name;
    EXPECT_EQ(events.front().site.label, "region") << name;
    EXPECT_EQ(events.back().site.category, "hotpath") << name;
  }

  const long long collected = CollectedInstructions(callgrind_out);
  ASSERT_GT(collected, 0) << "no summary line in " << callgrind_out;
  const double per_event = static_cast<double>(collected) / (2.0 * kPairs);
  const double limit = baseline * (1 + kAllowedGrowth);
  printf("instructions per region event: %.1f (baseline %.1f, limit %.1f)\n", per_event, baseline,
         limit);
  EXPECT_LE(per_event, limit)
      << "The region hot path grew: " << per_event << " instructions per event against a "
      << "baseline of " << baseline << " (+" << (per_event / baseline - 1) * 100 << " %, more than "
      << kAllowedGrowth * 100 << " %). Shorten it, or if the growth is "
      << "intended, put the new figure in " << kBaselineFile
      << " (run: bazel test //tests/hotpath:region_instructions_test --test_output=all, and "
      << "read the line 'instructions per region event').";
  if (per_event < baseline * (1 - kAllowedGrowth)) {
    printf("The hot path is more than %.0f %% shorter than the baseline: lower %s to %.1f.\n",
           kAllowedGrowth * 100, kBaselineFile, per_event);
  }
}

}  // namespace
