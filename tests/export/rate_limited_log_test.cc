// RateLimitedLog (tools/collector): at most `burst` lines per window, then a count of the
// lines left out before the first line of the next window.
#include "tools/collector/rate_limited_log.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace tracewire::testing {
namespace {

using tools::RateLimitedLog;

TEST(RateLimitedLogTest, PassesABurstPerWindowThenCountsWhatItLeftOut) {
  std::vector<std::string> lines;
  const RateLimitedLog::Sink sink = [&lines](const std::string& line) { lines.push_back(line); };
  RateLimitedLog log(sink, /*burst=*/3, /*window=*/absl::Seconds(10));
  const absl::Time start = absl::FromUnixSeconds(1000);
  for (int i = 0; i < 5; ++i) log.LogAt(absl::StrCat("line ", i), start);
  log.LogAt("line 5", start + absl::Seconds(9));
  EXPECT_EQ(lines, (std::vector<std::string>{"line 0", "line 1", "line 2"}));

  log.LogAt("line 6", start + absl::Seconds(10));
  EXPECT_EQ(lines, (std::vector<std::string>{"line 0", "line 1", "line 2",
                                             "3 more messages were left out", "line 6"}));

  // A window in which nothing was left out ends without a count.
  log.LogAt("line 7", start + absl::Seconds(25));
  EXPECT_EQ(lines.back(), "line 7");
  EXPECT_EQ(lines.size(), 6u);
}

TEST(RateLimitedLogTest, TheDefaultIsTwentyLinesPerTenSeconds) {
  std::vector<std::string> lines;
  const RateLimitedLog::Sink sink = [&lines](const std::string& line) { lines.push_back(line); };
  RateLimitedLog log(sink);
  const absl::Time start = absl::FromUnixSeconds(1000);
  for (int i = 0; i < 30; ++i) log.LogAt("x", start + absl::Milliseconds(100 * i));
  EXPECT_EQ(lines.size(), 20u);
  log.LogAt("y", start + absl::Seconds(10));
  ASSERT_EQ(lines.size(), 22u);
  EXPECT_EQ(lines[20], "10 more messages were left out");
  EXPECT_EQ(lines[21], "y");
}

TEST(RateLimitedLogTest, AnEmptySinkLogsNothing) {
  const RateLimitedLog::Sink none;
  RateLimitedLog log(none, /*burst=*/1);
  log.Log("dropped");
  log.LogAt("dropped too", absl::Now());
}

}  // namespace
}  // namespace tracewire::testing
