// `tracewire stats`' export size advice: the Chrome estimate, and a window suggested past
// 500 MB (tools/analysis/export_size.h).
#include "tools/analysis/export_size.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace tracewire::tools {
namespace {

TEST(ExportSizeTest, SmallTracesNeedNoWindow) {
  const std::string advice = ExportSizeAdvice(1000, 100, absl::Seconds(2));
  EXPECT_EQ(advice, "chrome export: about 0.1 MB\n");
}

TEST(ExportSizeTest, LargeTracesGetAWindowOfAboutFiveHundredMegabytes) {
  // 40 M region events: about 2.2 GB of Chrome JSON over 100 s: a window of about 23 s.
  const uint64_t bytes = EstimatedChromeBytes(40'000'000, 0);
  EXPECT_GT(bytes, uint64_t{2'000'000'000});
  const std::string advice = ExportSizeAdvice(40'000'000, 0, absl::Seconds(100));
  EXPECT_TRUE(absl::StartsWith(advice, "chrome export: about 2098.1 MB\n")) << advice;
  EXPECT_TRUE(absl::StrContains(advice, "--format=perfetto")) << advice;
  EXPECT_TRUE(absl::StrContains(advice, "--since=0s --until=23s")) << advice;
  // A short trace gets a window in milliseconds.
  const std::string short_trace = ExportSizeAdvice(40'000'000, 0, absl::Milliseconds(500));
  EXPECT_TRUE(absl::StrContains(short_trace, "--until=0.119s")) << short_trace;
}

}  // namespace
}  // namespace tracewire::tools
