// `tracewire diff` on real runs of the thread-pool example (examples/threadpool), 8 runs a
// side, interleaved so that the machine's load falls on both sides alike: with the compute
// stage made 50 times as long (ROUNDS 64 -> 3200) the stage's region is flagged slower with
// the largest change; two sets of unchanged runs (A/A) flag no region and no task.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

constexpr int kRuns = 8;

// Records run `index` of `side` with `rounds` compute rounds.
void Record(const std::string& dir, const std::string& side, int index, int rounds) {
  const std::string run = absl::StrCat(dir, "/", side, "/run", index);
  std::filesystem::create_directories(run);
  RunOptions options;
  options.env = {{"TRACEWIRE", run + "/trace.twr"}, {"TRACEWIRE_CATEGORIES", "-debug"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  const CommandResult r = RunCommand(
      {Runfile("examples/threadpool/threadpool"), "2000", absl::StrCat(rounds)}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

struct Row {
  std::string kind, name, verdict;
  double change = 0;
};

std::vector<Row> DiffRows(const std::string& base, const std::string& now) {
  const CommandResult r = RunCommand({Tracewire(), "diff", "--format=csv", base, now});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<Row> rows;
  const std::vector<std::string> lines = Lines(r.out);
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> f = absl::StrSplit(lines[i], ',');
    if (f.size() < 4) continue;
    Row row{f[0], f[1], f[2]};
    if (!absl::SimpleAtod(f[3], &row.change)) row.change = 0;
    rows.push_back(row);
  }
  return rows;
}

TEST(DiffRealRunsTest, SlowedStageIsFlaggedAndUnchangedRunsAreNot) {
  const std::string dir = NewTempDir("real_runs");
  for (int i = 0; i < kRuns; ++i) {
    Record(dir, "base", i, 64);
    Record(dir, "slow", i, 3200);
    Record(dir, "same", i, 64);
  }
  const std::vector<Row> slow = DiffRows(dir + "/base", dir + "/slow");
  const Row* compute = nullptr;
  double largest_other = 0;
  for (const Row& row : slow) {
    if (row.kind == "region" && row.name == "threadpool: work/compute") {
      compute = &row;
    } else if (row.kind == "region" && (row.verdict == "slower" || row.verdict == "faster")) {
      largest_other = std::max(largest_other, std::abs(row.change));
    }
  }
  ASSERT_NE(compute, nullptr);
  EXPECT_EQ(compute->verdict, "slower");
  EXPECT_GT(compute->change, 1.0);  // more than twice as long
  EXPECT_GT(compute->change, largest_other);

  int flagged = 0;
  for (const Row& row : DiffRows(dir + "/base", dir + "/same")) {
    const bool significant = row.verdict == "slower" || row.verdict == "faster";
    if (row.kind == "region" || row.kind == "task") {
      EXPECT_FALSE(significant) << row.kind << " " << row.name << " " << row.change;
    }
    flagged += significant;
  }
  std::printf("A/A on real runs: %d keys flagged\n", flagged);
}

}  // namespace
}  // namespace tracewire::cli_test
