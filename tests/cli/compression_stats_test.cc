// `tracewire stats` on a trace whose runtime left generations uncompressed although
// TRACEWIRE_COMPRESS asked for compression: it says so, with the count the runtime recorded
// (the `tracewire` `uncompressed_generations` counter), and says how many generations are
// compressed. testdata/compression_skipped.twr was recorded from the thread-pool example
// (examples/threadpool 1500) with TRACEWIRE_COMPRESS=1, TRACEWIRE_GENERATION_MS=5 and
// TRACEWIRE_GENERATION_BYTES=16384 on a loaded machine, where compression fell behind.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

constexpr char kFixture[] = "tests/cli/testdata/compression_skipped.twr";

// The integer that follows `prefix` in `text`, or -1.
int64_t NumberAfter(const std::string& text, const std::string& prefix) {
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return -1;
  const std::string rest = text.substr(at + prefix.size());
  const std::string digits = rest.substr(0, rest.find_first_not_of("0123456789"));
  int64_t value = -1;
  return absl::SimpleAtoi(digits, &value) ? value : -1;
}

TEST(CompressionStatsTest, StatsReportsTheGenerationsTheRuntimeLeftUncompressed) {
  const std::string trace = Runfile(kFixture);
  // The runtime's own count, as the EVENT target shows its counter.
  const CommandResult events = RunCommand({Tracewire(), "decode", "--format=event", trace});
  ASSERT_EQ(events.exit_code, 0) << events.err;
  int64_t recorded = -1;
  for (const std::string& line : std::vector<std::string>(absl::StrSplit(events.out, '\n'))) {
    if (absl::StrContains(line, "\"category\":\"tracewire\"") &&
        absl::StrContains(line, "\"name\":\"uncompressed_generations\"")) {
      recorded = NumberAfter(line, "\"count\":");
    }
  }
  ASSERT_GT(recorded, 0) << events.out;

  for (const char* jobs : {"--jobs=1", "--jobs=2"}) {
    const CommandResult stats = RunCommand({Tracewire(), "stats", jobs, trace});
    ASSERT_EQ(stats.exit_code, 0) << stats.err;
    EXPECT_EQ(NumberAfter(stats.out, "compression skipped: "), recorded) << stats.out;
    EXPECT_TRUE(absl::StrContains(stats.out,
                                  "generation(s) written uncompressed although "
                                  "TRACEWIRE_COMPRESS asked for compression"))
        << stats.out;
    // Every generation but the last is compressed or counted as skipped.
    const int64_t generations = NumberAfter(stats.out, "generations: ");
    const size_t open = stats.out.find('(', stats.out.find("generations: "));
    ASSERT_NE(open, std::string::npos) << stats.out;
    const int64_t compressed = NumberAfter(stats.out.substr(open), "(");
    ASSERT_GT(generations, 0) << stats.out;
    EXPECT_GE(compressed + recorded, generations - 1) << stats.out;
    EXPECT_LE(compressed + recorded, generations) << stats.out;
  }
}

// A trace written without compression trouble has no such line.
TEST(CompressionStatsTest, NoLineWhenNothingWasSkipped) {
  const std::string dir = NewTempDir("compression_stats");
  const std::string trace = dir + "/trace.twr";
  RunOptions options;
  options.env = {{"TRACEWIRE", trace}, {"TRACEWIRE_COMPRESS", "1"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  const CommandResult run = RunCommand({Runfile("examples/threadpool/threadpool"), "50"}, options);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const CommandResult stats = RunCommand({Tracewire(), "stats", trace});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  // One generation, written at exit (never counted as skipped).
  EXPECT_FALSE(absl::StrContains(stats.out, "compression skipped:")) << stats.out;
}

}  // namespace
}  // namespace tracewire::cli_test
