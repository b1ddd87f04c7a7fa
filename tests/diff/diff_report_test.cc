// `tracewire report --diff`: the differential page of two runs of the thread-pool example
// recorded with CPU samples, the second with its compute stage 100 times as long, opened
// in a real headless Chromium (tests/consumers/chromium_page.mjs): it loads without a
// message, script or request, draws the flame graph (NEW's frames, some red: a larger
// share in NEW), and its table flags the compute region slower.
#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/consumers/node_runner.h"

namespace tracewire::cli_test {
namespace {

using json = nlohmann::json;

void Record(const std::string& trace, int rounds) {
  RunOptions options;
  options.env = {
      {"TRACEWIRE", trace}, {"TRACEWIRE_CPU_PROFILE", "2000"}, {"TRACEWIRE_CATEGORIES", "-debug"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  const CommandResult r = RunCommand(
      {Runfile("examples/threadpool/threadpool"), "20000", absl::StrCat(rounds)}, options);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(DiffReportTest, DifferentialFlameGraphInChromium) {
  const std::string dir = NewTempDir("diff_report");
  Record(dir + "/base.twr", 64);
  Record(dir + "/new.twr", 6400);
  const std::string html = dir + "/diff.html";
  const CommandResult r = RunCommand(
      {Tracewire(), "report", "--diff", dir + "/base.twr", dir + "/new.twr", "-o", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = ReadFile(html);
  ASSERT_TRUE(absl::StartsWith(page, "<!DOCTYPE html>"));
  EXPECT_FALSE(absl::StrContains(page, "<script"));
  EXPECT_TRUE(absl::StrContains(page, "<td class=\"slower\">slower</td><td>region</td>")) << page;
  EXPECT_TRUE(absl::StrContains(page, "<code>threadpool: work/compute</code>"));

  const char* dir_env = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  const std::string shot = absl::StrCat(dir_env != nullptr ? dir_env : dir, "/diff_flame.png");
  absl::StatusOr<CommandResult> run =
      consumers::RunNodeScript("chromium_page.mjs", {html, shot}, /*timeout_seconds=*/240);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->exit_code, 0) << "headless Chromium could not open the page:\n" << run->err;
  const json result = json::parse(run->out, nullptr, false);
  ASSERT_TRUE(result.is_object()) << run->out;
  EXPECT_TRUE(result["messages"].empty()) << result["messages"];
  EXPECT_TRUE(result["logEntries"].empty()) << result["logEntries"];
  EXPECT_TRUE(result["requests"].empty()) << result["requests"];
  EXPECT_EQ(result["page"]["scripts"], 0);
  EXPECT_EQ(result["page"]["timelines"], 1);  // the flame graph's SVG
  EXPECT_GT(result["page"]["shapes"].get<int>(), 2);
  // Red frames: a fill rgb(r, g, g) with g well under r.
  bool red = false;
  for (const json& fill : result["page"]["fills"]) {
    int r = 0, g = 0, b = 0;
    if (std::sscanf(fill.get<std::string>().c_str(), "rgb(%d, %d, %d)", &r, &g, &b) == 3) {
      red |= r > g && g == b && g < 200;
    }
  }
  EXPECT_TRUE(red) << result["page"]["fills"];
  // The screenshot shows the frames: at least the root frame's row (full width, 16 pixels
  // high) is not background.
  const json& pixels = result["pixels"];
  ASSERT_TRUE(pixels.is_object()) << run->out;
  EXPECT_GT(pixels["nonBackground"].get<double>(), 0.9 * 16 * pixels["width"].get<double>())
      << pixels;
}

}  // namespace
}  // namespace tracewire::cli_test
