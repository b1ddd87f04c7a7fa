// `tracewire report` end to end: the page's content for the demo's process tree, hostile
// strings, a damaged trace, and a trace of more than 1,000,000 events; each page opened in
// a real headless Chromium (tests/consumers/chromium_page.mjs), which must load it without a
// console message or a request, and whose screenshot must show the timeline's bars.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/consumers/node_runner.h"

namespace tracewire::viewers_test {
namespace {

using cli_test::CommandResult;
using cli_test::ReadFile;
using cli_test::Runfile;
using nlohmann::json;

int Record(const std::vector<std::string>& argv, const std::string& target,
           std::vector<std::pair<std::string, std::string>> env = {}) {
  cli_test::RunOptions options;
  options.env = std::move(env);
  options.env.emplace_back("TRACEWIRE", target);
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  return cli_test::RunCommand(argv, options).exit_code;
}

CommandResult Report(const std::string& trace, const std::string& html) {
  return cli_test::RunCommand({cli_test::Tracewire(), "report", trace, "-o", html});
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Where the screenshots go: Bazel keeps TEST_UNDECLARED_OUTPUTS_DIR (outputs.zip).
std::string ScreenshotPath(const std::string& name) {
  const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR");
  return absl::StrCat(dir != nullptr ? dir : cli_test::NewTempDir("shots"), "/", name, ".png");
}

// Opens `html` in headless Chromium; checks that it loads cleanly (and, with `bars`, that
// the first timeline's screenshot shows bars); returns the summary.
json OpenInChromium(const std::string& html, const std::string& name, bool bars = true) {
  const std::string shot = ScreenshotPath(name);
  absl::StatusOr<CommandResult> run =
      consumers::RunNodeScript("chromium_page.mjs", {html, shot}, /*timeout_seconds=*/240);
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return json();
  EXPECT_EQ(run->exit_code, 0)
      << "headless Chromium could not open the page (Debian chromium is installed by "
         "install/install_deps.sh):\n"
      << run->err;
  const json page = json::parse(run->out, nullptr, false);
  EXPECT_TRUE(page.is_object()) << run->out;
  if (!page.is_object()) return json();
  EXPECT_TRUE(page["messages"].empty()) << "console: " << page["messages"];
  EXPECT_TRUE(page["logEntries"].empty()) << "log: " << page["logEntries"];
  EXPECT_TRUE(page["requests"].empty())
      << "a self-contained page fetches nothing: " << page["requests"];
  EXPECT_EQ(page["page"]["scripts"], 0);
  EXPECT_TRUE(page["page"]["brokenLinks"].empty()) << page["page"]["brokenLinks"];
  // The first timeline's screenshot: its bars, in the colours the page gives them, cover a
  // good part of it (the timeline is drawn, not only its axis).
  EXPECT_TRUE(page["pixels"].is_object()) << run->out;
  if (bars && page["pixels"].is_object()) {
    const json& pixels = page["pixels"];
    const double area = pixels["width"].get<double>() * pixels["height"].get<double>();
    EXPECT_GT(pixels["nonBackground"].get<double>(), 0.03 * area) << pixels;
    EXPECT_GT(pixels["bars"].get<double>(), 0.02 * area) << pixels << page["page"]["fills"];
  }
  return page;
}

TEST(ReportTest, DemoProcessTree) {
  const std::string dir = cli_test::NewTempDir("report_demo");
  const std::string traces = dir + "/traces";
  mkdir(traces.c_str(), 0755);
  ASSERT_EQ(Record({Runfile("examples/demo/demo")}, traces), 1);
  const std::string html = dir + "/report.html";
  const CommandResult report = Report(traces, html);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = ReadFile(html);
  ASSERT_TRUE(absl::StartsWith(page, "<!DOCTYPE html>")) << page.substr(0, 100);
  // Self-contained: no script, no stylesheet or image fetched.
  EXPECT_FALSE(absl::StrContains(page, "<script"));
  EXPECT_FALSE(absl::StrContains(page, "src="));
  EXPECT_FALSE(absl::StrContains(page, "<link"));
  EXPECT_FALSE(absl::StrContains(page, "http"));
  // Both processes, each with a timeline; the parent's exit code 1 and its error in red.
  EXPECT_EQ(Count(page, "<svg class=\"timeline\""), 2u);
  EXPECT_TRUE(absl::StrContains(page, "demo status<span class=\"badge bad\">exit 1</span>"))
      << page;
  EXPECT_TRUE(absl::StrContains(page, "demo child<span class=\"badge ok\">exit 0</span>"));
  EXPECT_TRUE(absl::StrContains(
      page, "error: pathspec &#39;nonexistent.txt&#39; did not match any file(s)</li>"));
  EXPECT_TRUE(absl::StrContains(page, "<path class=\"error\""));
  // The child process: a bar on the parent's children row linking to its section, which
  // links back to the parent.
  EXPECT_TRUE(absl::StrContains(page, "<a href=\"#p1\"><rect class=\"child\"")) << page;
  EXPECT_TRUE(absl::StrContains(page, "started by <a href=\"#p0\">demo status</a>"));
  // Regions by name, and the top regions: read_recursive 15 times.
  EXPECT_TRUE(absl::StrContains(page, "<title>status/worktree &middot; "));
  EXPECT_TRUE(absl::StrContains(page, "</td><td>15</td><td>dir/read_recursive</td>")) << page;

  const json chromium = OpenInChromium(html, "demo");
  EXPECT_EQ(chromium["page"]["timelines"], 2);
  EXPECT_EQ(chromium["page"]["title"], absl::StrCat("tracewire report: ", traces));
}

TEST(ReportTest, HostileStringsStayText) {
  const std::string dir = cli_test::NewTempDir("report_hostile");
  const std::string trace = dir + "/trace.twr";
  ASSERT_EQ(Record({Runfile("tests/testtool/testtool"), "trace2", "003error", "<script>alert(1)</script>",
                    "a&b \"c\" 'd' \x01"},
                   trace),
            0);
  const std::string html = dir + "/report.html";
  ASSERT_EQ(Report(trace, html).exit_code, 0);
  const std::string page = ReadFile(html);
  EXPECT_FALSE(absl::StrContains(page, "<script>"));
  EXPECT_TRUE(absl::StrContains(page, "error: &lt;script&gt;alert(1)&lt;/script&gt;</li>"));
  EXPECT_TRUE(absl::StrContains(page, "error: a&amp;b &quot;c&quot; &#39;d&#39; \xef\xbf\xbd</li>"))
      << page;
  const json chromium = OpenInChromium(html, "hostile", /*bars=*/false);
  EXPECT_EQ(chromium["page"]["scripts"], 0);
}

TEST(ReportTest, DamagedTraceStillReportsWhatCameBefore) {
  const std::string dir = cli_test::NewTempDir("report_damaged");
  const std::string trace = dir + "/trace.twr";
  // Generations of 64 KiB: the cut below damages only the last one. The background thread
  // cuts a generation some time after 64 KiB are buffered, so the workload writes about
  // 1 MiB to leave it many chances.
  ASSERT_EQ(Record({Runfile("tests/viewers/region_workload"), "2", "10000"}, trace,
                   {{"TRACEWIRE_GENERATION_BYTES", "65536"}}),
            0);
  const CommandResult stats = cli_test::RunCommand({cli_test::Tracewire(), "stats", trace});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  ASSERT_FALSE(absl::StrContains(stats.out, "generations: 1 ")) << stats.out;
  const std::string bytes = ReadFile(trace);
  const std::string cut = dir + "/cut.twr";
  ASSERT_TRUE(cli_test::WriteFile(cut, bytes.substr(0, bytes.size() - 100)));
  const std::string html = dir + "/report.html";
  const CommandResult report = Report(cut, html);
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(report.err, "tracewire report: ")) << report.err;
  const std::string page = ReadFile(html);
  EXPECT_TRUE(absl::StrContains(page, "The trace is damaged")) << page.substr(0, 2000);
  EXPECT_TRUE(absl::StrContains(page, "<svg class=\"timeline\""));

  EXPECT_EQ(Report(dir + "/missing.twr", html).exit_code, 2);
  EXPECT_EQ(cli_test::RunCommand({cli_test::Tracewire(), "report"}).exit_code, 2);
}

TEST(ReportTest, AMillionEventsStayASmallPage) {
  const std::string dir = cli_test::NewTempDir("report_large");
  const std::string trace = dir + "/trace.twr";
  // 32 threads x 2850 groups x 11 events, plus main's events.
  ASSERT_EQ(Record({Runfile("tests/viewers/region_workload"), "32", "2850"}, trace), 0);
  const std::string html = dir + "/report.html";
  const CommandResult report = Report(trace, html);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = ReadFile(html);
  // The header counts the trace's events; the process section its regions.
  std::smatch events;
  ASSERT_TRUE(std::regex_search(page, events, std::regex("([0-9]+) events &middot; 1 process")))
      << page.substr(0, 1500);
  EXPECT_GE(std::stoll(events[1]), 1000000);
  EXPECT_TRUE(absl::StrContains(page, " 456001 regions")) << "32 x 2850 x 5 + setup";
  EXPECT_LT(page.size(), 2u << 20) << "regions too small to see are drawn as runs";
  EXPECT_TRUE(absl::StrContains(page, "regions narrower than a pixel"));
  EXPECT_TRUE(absl::StrContains(page, "</td><td>182400</td><td>load/io</td>")) << "32 x 2850 x 2";
  const json chromium = OpenInChromium(html, "million");
  EXPECT_EQ(chromium["page"]["timelines"], 1);
}

}  // namespace
}  // namespace tracewire::viewers_test
