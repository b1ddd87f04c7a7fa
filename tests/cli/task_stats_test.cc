// `tracewire stats` on the thread-pool example (examples/threadpool): its tasks by name
// (count, total, p50/p95/max duration, threads visited) and its gauges (samples, min, max,
// last), the same for a serial and a parallel decoding of a trace of many generations.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

constexpr int kRequests = 20000;
constexpr int kMaxRuns = 20;

// The lines of `text` after the one that starts with `heading`, up to an empty line.
std::vector<std::string> Section(const std::string& text, const std::string& heading) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  std::vector<std::string> section;
  bool in = false;
  for (const std::string& line : lines) {
    if (in && line.empty()) break;
    if (in) section.push_back(line);
    if (absl::StartsWith(line, heading)) in = true;
  }
  return section;
}

TEST(TaskStatsTest, TasksByNameAndGauges) {
  const std::string trace = NewTempDir("task_stats") + "/trace.twr";
  RunOptions options;
  options.env = {{"TRACEWIRE", trace},
                 {"TRACEWIRE_GENERATION_BYTES", "65536"},
                 {"TRACEWIRE_CATEGORIES", "-debug"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  // Enough generations for the parallel decoding to split the tasks between workers. The
  // run lasts some 30 ms and generations are cut on size by a background thread: on a
  // machine busy enough to keep it off the CPU for the whole run, the trace is one
  // generation. Runs until one is cut into at least 4 (a few runs at most).
  CommandResult serial;
  int generations = 0;
  for (int attempt = 0; attempt < kMaxRuns && generations < 4; ++attempt) {
    std::filesystem::remove(trace);
    const CommandResult run =
        RunCommand({Runfile("examples/threadpool/threadpool"), absl::StrCat(kRequests)}, options);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    serial = RunCommand({Tracewire(), "stats", "--jobs=1", trace});
    ASSERT_EQ(serial.exit_code, 0) << serial.err;
    const size_t at = serial.out.find("generations: ");
    ASSERT_NE(at, std::string::npos) << serial.out;
    generations = std::stoi(serial.out.substr(at + 13));
  }
  ASSERT_GE(generations, 4) << "in " << kMaxRuns << " runs\n" << serial.out;
  const CommandResult parallel = RunCommand({Tracewire(), "stats", "--jobs=4", trace});
  ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
  EXPECT_EQ(serial.out, parallel.out);

  EXPECT_TRUE(absl::StrContains(serial.out, "tasks by name (0 still open):")) << serial.out;
  const std::vector<std::string> tasks = Section(serial.out, "tasks by name");
  ASSERT_EQ(tasks.size(), 2u) << serial.out;
  const std::vector<std::string> fields = absl::StrSplit(tasks[1], ' ', absl::SkipEmpty());
  ASSERT_EQ(fields.size(), 8u) << tasks[1];
  EXPECT_EQ(fields[0], absl::StrCat(kRequests));  // count
  EXPECT_EQ(fields[5], "3.00");                   // every request visits 3 threads
  EXPECT_EQ(fields[6], "3");
  EXPECT_EQ(fields[7], "server/request");
  // p50 <= p95 <= max <= total.
  const double p50 = std::stod(fields[2]), p95 = std::stod(fields[3]), max = std::stod(fields[4]);
  EXPECT_LE(p50, p95);
  EXPECT_LE(p95, max);
  EXPECT_LE(max, std::stod(fields[1]));

  const std::vector<std::string> gauges = Section(serial.out, "gauges:");
  ASSERT_EQ(gauges.size(), 4u) << serial.out;
  // Each queue's depth rises and falls once per request: 2 samples each, ending at 0.
  for (const std::string& name :
       {std::string("queue/work-depth (items)"), std::string("queue/write-depth (items)"),
        std::string("server/in-flight (requests)")}) {
    bool found = false;
    for (const std::string& line : gauges) {
      if (!absl::EndsWith(line, name)) continue;
      found = true;
      const std::vector<std::string> g = absl::StrSplit(line, ' ', absl::SkipEmpty());
      EXPECT_EQ(g[0], absl::StrCat(2 * kRequests)) << line;  // samples
      EXPECT_EQ(g[1], "0") << line;                          // min
      EXPECT_GE(std::stoi(g[2]), 1) << line;                 // max
      EXPECT_EQ(g[3], "0") << line;                          // last
    }
    EXPECT_TRUE(found) << name << "\n" << serial.out;
  }
}

}  // namespace
}  // namespace tracewire::cli_test
