// `tracewire decode --format=chrome` read by the consumers people open it with: the Chrome
// DevTools trace engine and speedscope (tests/consumers/chrome_consumers.mjs), on the demo's
// process tree, a 3-level testtool process tree and a multi-thread trace of more than
// 500,000 events. The expectations (per process and thread: the regions with their
// durations, the child processes, the flows) come from the reader's events, not from the
// Chrome output.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/process_tree.h"
#include "reader/reader.h"
#include "tests/cli/cli_runner.h"
#include "tests/consumers/node_runner.h"

namespace tracewire::viewers_test {
namespace {

using cli_test::CommandResult;
using cli_test::Runfile;
using nlohmann::json;

// What the trace at `path` holds, in the shape chrome_consumers.mjs expects.
struct Expectation {
  json doc;
  int64_t events = 0;
  int64_t regions = 0;
  int64_t cut_at_since = 0;  // regions a window cuts at its start
  int64_t cut_at_until = 0;  // and at its end
};

// A time window (offsets from the first event, as `decode --since/--until` take them).
struct Window {
  absl::Duration since = absl::ZeroDuration();
  absl::Duration until = absl::InfiniteDuration();
};

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

// With a window: only what lies in it, regions cut at its edges (reader/event_window.h).
template <typename R>
Expectation Expect(R& reader, const std::optional<Window>& window = std::nullopt) {
  struct Thread {
    std::vector<std::pair<std::string, absl::Time>> open;
    json regions = json::array();
  };
  struct Process {
    std::string exe, command;
    int children = 0;
    std::map<std::string, Thread> threads;
  };
  std::map<std::string, Process> processes;
  Expectation expectation;
  std::optional<absl::Time> first;
  absl::Time since, until;
  while (true) {
    absl::StatusOr<const reader::Event*> next = reader.Next();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || *next == nullptr) break;
    const reader::Event& e = **next;
    if (!first.has_value()) {
      first = e.time;
      since = window.has_value() ? e.time + window->since : absl::InfinitePast();
      until = window.has_value() ? e.time + window->until : absl::InfiniteFuture();
    }
    const bool inside = e.time >= since && e.time <= until;
    // Regions are cut at the window's edges; start and cmd_name before it are stated
    // again at its start.
    if (e.kind != reader::EventKind::kRegionEnter && e.kind != reader::EventKind::kRegionLeave &&
        !(e.time < since &&
          (e.kind == reader::EventKind::kStart || e.kind == reader::EventKind::kCmdName)) &&
        !inside) {
      continue;
    }
    ++expectation.events;
    Process& p = processes[std::string(e.sid)];
    Thread& t = p.threads[std::string(e.thread_name)];
    switch (e.kind) {
      case reader::EventKind::kStart:
        if (!e.argv.empty()) p.exe = std::string(Basename(e.argv[0]));
        break;
      case reader::EventKind::kCmdName:
        p.command = std::string(e.cmd_name);
        break;
      case reader::EventKind::kChildStart:
        ++p.children;
        break;
      case reader::EventKind::kRegionEnter:
        t.open.emplace_back(std::string(e.label), e.time);
        break;
      case reader::EventKind::kRegionLeave: {
        EXPECT_FALSE(t.open.empty()) << "a leave without its enter in the test traces";
        if (t.open.empty()) break;
        // Regions overlapping the window, cut at its edges.
        const absl::Time begin = t.open.back().second;
        if (e.time >= since && begin <= until) {
          expectation.cut_at_since += begin < since;
          expectation.cut_at_until += e.time > until;
          t.regions.push_back(
              {t.open.back().first,
               absl::ToInt64Nanoseconds(std::min(e.time, until) - std::max(begin, since))});
          ++expectation.regions;
        }
        t.open.pop_back();
        break;
      }
      default:
        break;
    }
  }
  json list = json::array();
  int flows = 0;
  for (const auto& [sid, p] : processes) {
    json threads = json::array();
    for (const auto& [name, t] : p.threads) {
      EXPECT_TRUE(t.open.empty()) << "regions still open at the end of " << sid << " " << name;
      threads.push_back({{"name", name}, {"regions", t.regions}});
    }
    const size_t slash = sid.rfind('/');
    if (slash != std::string::npos && processes.count(sid.substr(0, slash))) ++flows;
    std::string name = p.command.empty() ? p.exe : absl::StrCat(p.exe, " ", p.command);
    list.push_back({{"sid", sid}, {"name", name}, {"children", p.children}, {"threads", threads}});
  }
  expectation.doc = {{"processes", list}, {"flows", flows}};
  return expectation;
}

Expectation ExpectFromTrace(const std::string& path, bool directory,
                            const std::optional<Window>& window = std::nullopt) {
  if (directory) {
    absl::StatusOr<std::unique_ptr<reader::ProcessTreeReader>> tree =
        reader::ProcessTreeReader::OpenDirectory(path);
    EXPECT_TRUE(tree.ok()) << tree.status();
    return tree.ok() ? Expect(**tree, window) : Expectation{};
  }
  absl::StatusOr<std::unique_ptr<reader::Reader>> file = reader::Reader::OpenFile(path);
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? Expect(**file, window) : Expectation{};
}

// Records `argv` with TRACEWIRE=`target` (and `env`); returns the exit code.
int Record(const std::vector<std::string>& argv, const std::string& target,
           std::vector<std::pair<std::string, std::string>> env = {}) {
  cli_test::RunOptions options;
  options.env = std::move(env);
  options.env.emplace_back("TRACEWIRE", target);
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  return cli_test::RunCommand(argv, options).exit_code;
}

// Exports `trace` with `tracewire decode --format=chrome`, runs both consumers on it and
// checks their summaries against the trace (whose expectation goes to *out if set, and the
// Chrome file's path to *chrome_path).
void CheckConsumers(const std::string& name, const std::string& trace, bool directory,
                    Expectation* out = nullptr, std::string* chrome_path = nullptr,
                    const std::optional<Window>& window = std::nullopt) {
  const std::string dir = cli_test::NewTempDir(name);
  const std::string chrome = dir + "/trace.json";
  if (chrome_path != nullptr) *chrome_path = chrome;
  std::vector<std::string> argv = {cli_test::Tracewire(), "decode", "--format=chrome"};
  if (window.has_value()) {
    argv.push_back(absl::StrCat("--since=", absl::ToInt64Nanoseconds(window->since), "ns"));
    argv.push_back(absl::StrCat("--until=", absl::ToInt64Nanoseconds(window->until), "ns"));
  }
  argv.insert(argv.end(), {trace, "-o", chrome});
  const CommandResult decode = cli_test::RunCommand(argv);
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  const Expectation expectation = ExpectFromTrace(trace, directory, window);
  if (out != nullptr) *out = expectation;
  ASSERT_GT(expectation.regions, 0);
  const std::string expected = dir + "/expected.json";
  ASSERT_TRUE(cli_test::WriteFile(expected, expectation.doc.dump()));

  absl::StatusOr<CommandResult> run =
      consumers::RunNodeScript("chrome_consumers.mjs", {chrome, expected});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->exit_code, 0) << run->err << run->out;
  // One summary line per consumer; the slice counts are the trace's region counts.
  const std::vector<std::string> lines = cli_test::Lines(run->out);
  ASSERT_EQ(lines.size(), 2u) << run->out;
  const json engine = json::parse(lines[0]);
  const json speedscope = json::parse(lines[1]);
  EXPECT_EQ(engine["consumer"], "trace_engine");
  EXPECT_EQ(engine["slices"], expectation.regions);
  EXPECT_EQ(engine["flows"], expectation.doc["flows"]);
  EXPECT_EQ(engine["processes"], expectation.doc["processes"].size());
  EXPECT_EQ(speedscope["consumer"], "speedscope");
  EXPECT_EQ(speedscope["calls"], expectation.regions);
  EXPECT_EQ(speedscope["warnings"], 0);
}

TEST(ChromeConsumersTest, DemoProcessTree) {
  // With stacks captured at every region_enter and error (as stackFrames and sf).
  const std::string dir = cli_test::NewTempDir("demo_traces");
  ASSERT_EQ(
      Record({Runfile("examples/demo/demo")}, dir, {{"TRACEWIRE_STACKS", "region_enter,error"}}),
      1);  // the demo ends with an error
  std::string chrome_path;
  CheckConsumers("demo_dir", dir, /*directory=*/true, nullptr, &chrome_path);
  const json chrome = json::parse(cli_test::ReadFile(chrome_path));
  ASSERT_GT(chrome["stackFrames"].size(), 0u);
  int with_stack = 0;
  for (const json& e : chrome["traceEvents"]) with_stack += e.contains("sf");
  EXPECT_GE(with_stack, 1 + 15 + 5 + 1) << "regions of both processes and the error";
  const std::string file = cli_test::NewTempDir("demo_file") + "/trace.twr";
  ASSERT_EQ(Record({Runfile("examples/demo/demo")}, file), 1);
  CheckConsumers("demo_file", file, /*directory=*/false);
}

TEST(ChromeConsumersTest, ThreeLevelProcessTree) {
  // testtool -> testtool -> region_workload (which records regions on two threads).
  const std::string testtool = Runfile("tests/testtool/testtool");
  const std::string dir = cli_test::NewTempDir("tree_traces");
  ASSERT_EQ(Record({testtool, "trace2", "004child", testtool, "trace2", "004child",
                    Runfile("tests/viewers/region_workload"), "2", "10"},
                   dir),
            0);
  Expectation expectation;
  CheckConsumers("tree", dir, /*directory=*/true, &expectation);
  EXPECT_EQ(expectation.doc["processes"].size(), 3u);
  EXPECT_EQ(expectation.doc["flows"], 2);
}

TEST(ChromeConsumersTest, TimeWindowCutsRegionsAtItsEdges) {
  // A window over the middle of a 4-thread trace: the regions inside it, and those open at
  // its edges cut there, balanced in both consumers.
  const std::string file = cli_test::NewTempDir("window") + "/trace.twr";
  ASSERT_EQ(Record({Runfile("tests/viewers/region_workload"), "4", "3000"}, file), 0);
  absl::StatusOr<std::unique_ptr<reader::Reader>> r = reader::Reader::OpenFile(file);
  ASSERT_TRUE(r.ok()) << r.status();
  // The window is placed by the region events (from the 30th to the 60th percentile of
  // their times), not at fixed fractions of the trace's span: where the span is not spent
  // in the workers (a program that waits before or after them longer than they run, a
  // thread whose clock runs apart) such a window can hold no region at all.
  std::optional<absl::Time> first;
  std::vector<absl::Time> region_times;
  while (true) {
    absl::StatusOr<const reader::Event*> next = (*r)->Next();
    ASSERT_TRUE(next.ok()) << next.status();
    if (*next == nullptr) break;
    if (!first.has_value()) first = (*next)->time;
    if ((*next)->kind == reader::EventKind::kRegionEnter ||
        (*next)->kind == reader::EventKind::kRegionLeave) {
      region_times.push_back((*next)->time);
    }
  }
  ASSERT_TRUE(first.has_value());
  ASSERT_GT(region_times.size(), 10000u);
  std::sort(region_times.begin(), region_times.end());
  const Window window{region_times[region_times.size() * 3 / 10] - *first,
                      region_times[region_times.size() * 6 / 10] - *first};
  Expectation expectation;
  CheckConsumers("window", file, /*directory=*/false, &expectation, nullptr, window);
  EXPECT_GT(expectation.cut_at_since, 0);
  EXPECT_GT(expectation.cut_at_until, 0);
  EXPECT_GT(expectation.regions, 1000);
}

TEST(ChromeConsumersTest, HalfAMillionEventsOnThirtyTwoThreads) {
  const std::string file = cli_test::NewTempDir("large") + "/trace.twr";
  // 32 threads x 1425 groups x 11 events, plus main's events. (speedscope's importer takes
  // a time quadratic in the slices of one thread: 32 threads keep it to seconds.)
  ASSERT_EQ(Record({Runfile("tests/viewers/region_workload"), "32", "1425"}, file), 0);
  Expectation expectation;
  CheckConsumers("large", file, /*directory=*/false, &expectation);
  EXPECT_GE(expectation.events, 500000);
}

// The checks are not a rubber stamp: the Chrome JSON tracewire once wrote (B/E events whose
// E carries no name) fails both consumers.
TEST(ChromeConsumersTest, UnnamedEndEventsAreCaught) {
  const std::string dir = cli_test::NewTempDir("unnamed_end");
  const json events = json::parse(R"([
    {"name":"process_labels","ph":"M","pid":7,"tid":0,"args":{"labels":"x,S-P00000007"}},
    {"name":"process_name","ph":"M","pid":7,"tid":0,"args":{"name":"x"}},
    {"name":"thread_name","ph":"M","pid":7,"tid":0,"args":{"name":"main"}},
    {"name":"outer","cat":"c","ph":"B","ts":10.000,"pid":7,"tid":0},
    {"name":"inner","cat":"c","ph":"B","ts":11.000,"pid":7,"tid":0},
    {"ph":"E","ts":12.000,"pid":7,"tid":0},
    {"ph":"E","ts":20.000,"pid":7,"tid":0}])");
  ASSERT_TRUE(cli_test::WriteFile(dir + "/trace.json", json({{"traceEvents", events}}).dump()));
  const json expected = {
      {"processes",
       {{{"sid", "S-P00000007"},
         {"name", "x"},
         {"children", 0},
         {"threads", {{{"name", "main"}, {"regions", {{"outer", 10000}, {"inner", 1000}}}}}}}}},
      {"flows", 0}};
  ASSERT_TRUE(cli_test::WriteFile(dir + "/expected.json", expected.dump()));
  absl::StatusOr<CommandResult> run = consumers::RunNodeScript(
      "chrome_consumers.mjs", {dir + "/trace.json", dir + "/expected.json"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->exit_code, 1) << run->out;
  EXPECT_TRUE(absl::StrContains(run->err, "trace engine: exception")) << run->err;
  EXPECT_TRUE(absl::StrContains(run->err, "speedscope warned: ")) << run->err;
}

}  // namespace
}  // namespace tracewire::viewers_test
