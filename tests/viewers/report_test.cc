// `tracewire report` end to end: the page's content for the demo's process tree, hostile
// strings, a damaged trace, and a trace of more than 1,000,000 events; each page opened in
// a real headless Chromium (tests/consumers/chromium_page.mjs), which must load it without a
// console message or a request, and whose screenshot must show the timeline's bars; and the
// thread-pool example's tasks (a lane per task name) and gauges (a chart each), checked
// against the reader's events.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/reader.h"
#include "tests/cli/cli_runner.h"
#include "tests/consumers/node_runner.h"
#include "tools/analysis/report_model.h"

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
  ASSERT_EQ(Record({Runfile("tests/testtool/testtool"), "trace2", "003error",
                    "<script>alert(1)</script>", "a&b \"c\" 'd' \x01"},
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
  // 1 MiB to leave it many chances; a machine busy enough to keep that thread off the CPU
  // for the whole run leaves one generation, and the workload runs again (a few times at
  // most).
  CommandResult stats;
  for (int attempt = 0; attempt < 20; ++attempt) {
    std::filesystem::remove(trace);
    ASSERT_EQ(Record({Runfile("tests/viewers/region_workload"), "2", "10000"}, trace,
                     {{"TRACEWIRE_GENERATION_BYTES", "65536"}}),
              0);
    stats = cli_test::RunCommand({cli_test::Tracewire(), "stats", trace});
    ASSERT_EQ(stats.exit_code, 0) << stats.err;
    if (!absl::StrContains(stats.out, "generations: 1 ")) break;
  }
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
  // What is drawn is bounded by the pixels, not the regions: on a row, a region at least
  // half a pixel wide (kCompactedWidth pixels over the process's time) or a run of narrower
  // ones, at most two per pixel. How many regions of this live run are wide enough to draw
  // depends on the machine (a region the scheduler interrupts is as wide as the pause): the
  // page is about 150 KB on an idle machine and was 2.1 MB on a loaded one. The synthetic
  // trace below, with fixed times, checks the size.
  constexpr size_t kRows = 32 * 3 + 1;  // task > step > io on each worker, setup on main
  const size_t rects = Count(page, "<rect");
  EXPECT_LE(rects, kRows * (2 * tools::kCompactedWidth + 1)) << "regions too small to see are runs";
  EXPECT_TRUE(absl::StrContains(page, "regions narrower than a pixel"));
  EXPECT_TRUE(absl::StrContains(page, "</td><td>182400</td><td>load/io</td>")) << "32 x 2850 x 2";
  const json chromium = OpenInChromium(html, "million");
  EXPECT_EQ(chromium["page"]["timelines"], 1);
}

TEST(ReportTest, AMillionEventsWithFixedTimesMakeASmallPage) {
  const std::string dir = cli_test::NewTempDir("report_synthetic");
  const std::string trace = dir + "/trace.twr";
  // 32 threads, each repeating a region around three data events, 1 to 100 ns apart.
  const CommandResult made =
      cli_test::RunCommand({Runfile("tests/bench/make_bench_trace"), "--threads=32",
                            "--events=1000000", "--events_per_generation=200000", trace});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string html = dir + "/report.html";
  const CommandResult report = Report(trace, html);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = ReadFile(html);
  EXPECT_TRUE(absl::StrContains(page, "1000000 events &middot; 200000 regions")) << page.size();
  EXPECT_TRUE(absl::StrContains(page, "regions narrower than a pixel"));
  // 200,000 regions, a run per thread wherever they are too narrow to see one by one.
  EXPECT_LT(Count(page, "<rect"), 1000u);
  EXPECT_LT(page.size(), 256u << 10) << "regions too small to see are drawn as runs";
}

// What the report should say of a trace's tasks and gauges, from the reader's events.
struct TaskLaneExpectation {
  int64_t tasks = 0;
  std::map<uint64_t, int64_t> segments;  // by thread number
};
struct GaugeExpectation {
  int64_t samples = 0;
  int64_t min = 0;
  int64_t max = 0;
  int64_t last = 0;
};
struct TasksAndGauges {
  std::map<std::string, TaskLaneExpectation> lanes;  // by "category/name"
  std::map<std::string, GaugeExpectation> gauges;    // by "category/name (unit)"
  std::map<uint64_t, std::string> thread_names;      // by thread number
  size_t max_open_tasks = 0;                         // tasks open at the same time
};

TasksAndGauges ReadTasksAndGauges(const std::string& trace) {
  TasksAndGauges result;
  absl::StatusOr<std::unique_ptr<reader::Reader>> reader = reader::Reader::OpenFile(trace);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return result;
  absl::flat_hash_map<uint64_t, std::string> open_tasks;  // task ID -> name
  while (true) {
    absl::StatusOr<const reader::Event*> next = (*reader)->Next();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || *next == nullptr) break;
    const reader::Event& e = **next;
    result.thread_names.try_emplace(e.thread_id, std::string(e.thread_name));
    switch (e.kind) {
      case reader::EventKind::kTaskBegin: {
        const std::string name = absl::StrCat(e.category, "/", e.label);
        open_tasks[e.task_id] = name;
        ++result.lanes[name].tasks;
        result.max_open_tasks = std::max(result.max_open_tasks, open_tasks.size());
        break;
      }
      case reader::EventKind::kTaskEnd:
        open_tasks.erase(e.task_id);
        break;
      case reader::EventKind::kTaskAdopt: {
        auto it = open_tasks.find(e.task_id);
        const std::string name =
            it != open_tasks.end() ? it->second : "tasks begun before the trace";
        ++result.lanes[name].segments[e.thread_id];
        break;
      }
      case reader::EventKind::kGauge: {
        std::string name = absl::StrCat(e.category, "/", e.label);
        if (e.unit.has_value() && !e.unit->empty()) absl::StrAppend(&name, " (", *e.unit, ")");
        GaugeExpectation& gauge = result.gauges[name];
        if (gauge.samples++ == 0) gauge.min = gauge.max = e.value_int;
        gauge.min = std::min(gauge.min, e.value_int);
        gauge.max = std::max(gauge.max, e.value_int);
        gauge.last = e.value_int;
        break;
      }
      default:
        break;
    }
  }
  return result;
}

// Records the thread-pool example serving `requests` requests and reports it; checks every
// task lane and gauge chart of the page against the reader's events; returns the page.
std::string CheckThreadPoolReport(int requests, const std::string& dir, const std::string& html) {
  const std::string trace = dir + "/trace.twr";
  EXPECT_EQ(Record({Runfile("examples/threadpool/threadpool"), absl::StrCat(requests)}, trace), 0);
  const TasksAndGauges expected = ReadTasksAndGauges(trace);
  const CommandResult report = Report(trace, html);
  EXPECT_EQ(report.exit_code, 0) << report.err;
  const std::string page = ReadFile(html);

  // One lane per task name: its task and segment counts, per thread.
  EXPECT_EQ(Count(page, "<svg class=\"tasks\""), expected.lanes.size());
  EXPECT_TRUE(expected.lanes.contains("server/request")) << page.substr(0, 3000);
  for (const auto& [name, lane] : expected.lanes) {
    int64_t segments = 0;
    std::string threads;
    for (const auto& [id, count] : lane.segments) {
      segments += count;
      absl::StrAppend(&threads, threads.empty() ? " " : ", ", expected.thread_names.at(id), " ",
                      count);
    }
    const std::string text = absl::StrCat("<h4 class=\"task\">", name, "</h4>\n<p class=\"meta\">",
                                          lane.tasks, " tasks &middot; ", segments, " segments on ",
                                          lane.segments.size(), " thread(s):", threads, "</p>");
    EXPECT_TRUE(absl::StrContains(page, text)) << text << "\n" << page.substr(0, 4000);
  }
  // Tasks overlapping more than the 8 rows of a lane's spans are said to overlap on its last.
  EXPECT_EQ(absl::StrContains(page, "<p class=\"note\">More than 8 tasks at a time: the last row"),
            expected.max_open_tasks > 8)
      << expected.max_open_tasks;
  // Tasks that overlap on that row are drawn as grey runs: the page stays small.
  EXPECT_EQ(absl::StrContains(page, " tasks narrower than a pixel or overlapping, "),
            expected.max_open_tasks > 8);
  EXPECT_LT(page.size(), 200u << 10);
  // A chart per gauge: samples, min, max and last as the trace has them; every sample drawn
  // unless there are more than the 1000 pixel columns of the axis, and then at most 3 per
  // column.
  EXPECT_EQ(Count(page, "<svg class=\"gauge\""), expected.gauges.size());
  EXPECT_EQ(expected.gauges.size(), 3u);
  EXPECT_FALSE(absl::StrContains(page, "are not drawn")) << "every lane and chart is drawn";
  for (const auto& [title, gauge] : expected.gauges) {
    const std::string text =
        absl::StrCat("<h4 class=\"gauge\">", title, "</h4>\n<p class=\"meta\">", gauge.samples,
                     " samples &middot; min ", gauge.min, " &middot; max ", gauge.max,
                     " &middot; last ", gauge.last);
    const size_t at = page.find(text);
    EXPECT_NE(at, std::string::npos) << text << "\n" << page.substr(0, 4000);
    if (at == std::string::npos) continue;
    const size_t path = page.find("<path class=\"gauge\" d=\"M", at);
    EXPECT_NE(path, std::string::npos) << title;
    if (path == std::string::npos) continue;
    const std::string d = page.substr(path, page.find('"', path + 26) - path);
    const int64_t points = 1 + static_cast<int64_t>(Count(d, "V"));
    const size_t caption_end = page.find("</p>", at);
    const std::string caption = page.substr(at, caption_end - at);
    if (gauge.samples <= 1000) {
      EXPECT_EQ(points, gauge.samples) << title;
      EXPECT_FALSE(absl::StrContains(caption, "drawn as")) << caption;
    } else {
      EXPECT_LE(points, 3000) << title;
      EXPECT_LT(points, gauge.samples) << title;
      EXPECT_TRUE(absl::StrContains(caption, absl::StrCat(" &middot; drawn as ", points,
                                                          " points: the lowest, highest and "
                                                          "last sample of each pixel column")))
          << caption;
    }
    // The chart's y axis is labelled with the lowest and highest sample.
    const std::string svg = page.substr(at, path - at);
    EXPECT_TRUE(absl::StrContains(svg, absl::StrCat(">", gauge.max, "</text>"))) << svg;
    EXPECT_TRUE(absl::StrContains(svg, absl::StrCat(">", gauge.min, "</text>"))) << svg;
  }
  return page;
}

TEST(ReportTest, ThreadPoolTaskLanesAndGaugeCharts) {
  const std::string dir = cli_test::NewTempDir("report_threadpool");
  const std::string html = dir + "/report.html";
  // 2000 requests: 4000 samples per queue gauge, drawn downsampled.
  const std::string page = CheckThreadPoolReport(2000, dir, html);
  // Every request crosses the acceptor, a worker and the writer: 3 segments each (how many
  // workers get requests depends on the scheduler).
  EXPECT_TRUE(absl::StrContains(page,
                                "<h4 class=\"task\">server/request</h4>\n<p class=\"meta\">"
                                "2000 tasks &middot; 6000 segments on "));
  // The page loads cleanly (its process timeline holds microsecond regions on a
  // millisecond axis, mostly white: no check of how much of it the bars cover).
  const json chromium = OpenInChromium(html, "threadpool", /*bars=*/false);
  EXPECT_EQ(chromium["page"]["timelines"], 1);
}

TEST(ReportTest, SmallGaugesDrawEverySample) {
  const std::string dir = cli_test::NewTempDir("report_threadpool_small");
  const std::string page = CheckThreadPoolReport(150, dir, dir + "/report.html");
  EXPECT_FALSE(absl::StrContains(page, "drawn as"));
}

TEST(ReportTest, ManyTaskNamesAndGaugesStayBounded) {
  const std::string dir = cli_test::NewTempDir("report_many_names");
  const std::string trace = dir + "/trace.twr";
  ASSERT_EQ(Record({Runfile("tests/viewers/task_workload"), "70", "70"}, trace), 0);
  const std::string html = dir + "/report.html";
  const CommandResult report = Report(trace, html);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = ReadFile(html);
  // The first 64 task names and gauges are drawn, in order of appearance; the rest counted.
  EXPECT_EQ(Count(page, "<svg class=\"tasks\""), 64u);
  EXPECT_EQ(Count(page, "<svg class=\"gauge\""), 64u);
  for (int i = 0; i < 64; ++i) {
    EXPECT_TRUE(absl::StrContains(
        page,
        absl::StrCat("<h4 class=\"task\">jobs/name-", i,
                     "</h4>\n<p class=\"meta\">1 tasks &middot; 1 segments on 1 thread(s): ")))
        << i;
    EXPECT_TRUE(absl::StrContains(
        page, absl::StrCat("<h4 class=\"gauge\">levels/gauge-", i,
                           " (units)</h4>\n<p class=\"meta\">2 samples &middot; min 0 &middot; "
                           "max 1 &middot; last 0</p>")))
        << i;
  }
  EXPECT_FALSE(absl::StrContains(page, ">jobs/name-64<"));
  EXPECT_FALSE(absl::StrContains(page, ">levels/gauge-64 (units)<"));
  EXPECT_TRUE(
      absl::StrContains(page, "<p class=\"note\">6 more task names (6 tasks) are not drawn"));
  EXPECT_TRUE(absl::StrContains(page, "<p class=\"note\">6 more gauges are not drawn"));
  const json chromium = OpenInChromium(html, "many_names", /*bars=*/false);
  EXPECT_EQ(chromium["page"]["timelines"], 1);
}

}  // namespace
}  // namespace tracewire::viewers_test
