// The thread-pool example (examples/threadpool: an acceptor, 4 workers and a writer; every
// request a task crossing three threads; three gauges sampled at every change; the "debug"
// category excluded with TRACEWIRE_CATEGORIES) exported with `tracewire decode
// --format=chrome` and read by the DevTools trace engine and speedscope
// (tests/consumers/task_consumers.mjs). The expectations come from the reader's events.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/reader.h"
#include "tests/cli/cli_runner.h"
#include "tests/consumers/node_runner.h"

namespace tracewire::viewers_test {
namespace {

using cli_test::CommandResult;
using cli_test::Runfile;
using nlohmann::json;

constexpr int kRequests = 2000;

// The example's trace (recorded once).
const std::string& ThreadPoolTrace() {
  static const std::string* trace = [] {
    auto* path = new std::string(cli_test::NewTempDir("threadpool_trace") + "/trace.twr");
    cli_test::RunOptions options;
    options.env = {{"TRACEWIRE", *path}, {"TRACEWIRE_CATEGORIES", "*,-debug"}};
    options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
    const CommandResult run = cli_test::RunCommand(
        {Runfile("examples/threadpool/threadpool"), absl::StrCat(kRequests)}, options);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return path;
  }();
  return *trace;
}

TEST(TaskConsumersTest, ThreadPoolTasksFlowsAndGauges) {
  const std::string dir = cli_test::NewTempDir("threadpool");
  const std::string& trace = ThreadPoolTrace();

  // What the trace holds, from the reader.
  absl::StatusOr<std::unique_ptr<reader::Reader>> reader = reader::Reader::OpenFile(trace);
  ASSERT_TRUE(reader.ok()) << reader.status();
  struct Task {
    std::vector<std::string> hops;  // threads that adopted it while it was open
    bool open = true;
  };
  std::map<uint64_t, Task> tasks;  // by task ID (ascending = begin order on one thread)
  absl::flat_hash_map<uint64_t, std::string> adopted;
  json gauges = json::object();
  int64_t regions = 0;
  int64_t segments = 0;
  int64_t samples = 0;
  int ended = 0;
  int debug_events = 0;
  while (true) {
    absl::StatusOr<const reader::Event*> next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status();
    if (*next == nullptr) break;
    const reader::Event& e = **next;
    if (e.category == "debug") ++debug_events;
    switch (e.kind) {
      case reader::EventKind::kTaskBegin:
        tasks[e.task_id];
        break;
      case reader::EventKind::kTaskAdopt:
        ++segments;
        if (auto it = tasks.find(e.task_id); it != tasks.end() && it->second.open) {
          it->second.hops.emplace_back(e.thread_name);
        }
        break;
      case reader::EventKind::kTaskEnd:
        tasks[e.task_id].open = false;
        ++ended;
        break;
      case reader::EventKind::kRegionLeave:
        ++regions;
        break;
      case reader::EventKind::kGauge: {
        std::string name = absl::StrCat(e.category, "/", e.label);
        if (e.unit.has_value()) absl::StrAppend(&name, " (", *e.unit, ")");
        gauges[name].push_back(e.value_int);
        ++samples;
        break;
      }
      default:
        break;
    }
  }
  ASSERT_EQ(tasks.size(), static_cast<size_t>(kRequests));
  EXPECT_EQ(ended, kRequests);
  EXPECT_EQ(debug_events, 0);
  EXPECT_GE(samples, 10000);
  json hops = json::array();
  for (const auto& [id, task] : tasks) {
    EXPECT_GE(task.hops.size(), 3u) << "task " << id;
    hops.push_back(task.hops);
  }
  const json expected = {{"tasks", kRequests},  {"ended", ended},
                         {"hops", hops},        {"gauges", gauges},
                         {"excluded", "debug"}, {"slices", regions + segments}};
  const std::string expected_path = dir + "/expected.json";
  ASSERT_TRUE(cli_test::WriteFile(expected_path, expected.dump()));

  const std::string chrome = dir + "/trace.json";
  const CommandResult decode = cli_test::RunCommand(
      {cli_test::Tracewire(), "decode", "--format=chrome", trace, "-o", chrome});
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  absl::StatusOr<CommandResult> consumers =
      consumers::RunNodeScript("task_consumers.mjs", {chrome, expected_path});
  ASSERT_TRUE(consumers.ok()) << consumers.status();
  ASSERT_EQ(consumers->exit_code, 0) << consumers->err << consumers->out;
  const json summary = json::parse(consumers->out);
  EXPECT_EQ(summary["flows"], kRequests);
  EXPECT_EQ(summary["flow_steps"], 2 * kRequests);  // acceptor -> worker -> writer
  EXPECT_EQ(summary["async_tasks"], kRequests);
  EXPECT_EQ(summary["gauge_series"], 3);
  EXPECT_EQ(summary["gauge_samples"], samples);
  EXPECT_EQ(summary["speedscope_calls"], regions + segments);
  EXPECT_EQ(summary["speedscope_warnings"], 0);
}

// The middle fifth of the run through `decode --since --until`: the tasks active at the
// window's start begin again there, the workers working for one adopt it again, and all
// end at its end (reader/event_window.h); the consumers see every task overlapping the
// window as one balanced async slice, one flow per task through the segments that overlap
// the window, and the samples and regions inside it.
TEST(TaskConsumersTest, AWindowCutsTasksAndSegmentsAtItsEdges) {
  const std::string dir = cli_test::NewTempDir("threadpool_window");
  const std::string& trace = ThreadPoolTrace();
  const absl::Time kNever = absl::InfiniteFuture();
  // The window: from just after the event at 40 % of the events to just before the one at
  // 60 % (the run's time has long idle stretches).
  std::vector<absl::Time> times;
  {
    absl::StatusOr<std::unique_ptr<reader::Reader>> reader = reader::Reader::OpenFile(trace);
    ASSERT_TRUE(reader.ok()) << reader.status();
    while (true) {
      absl::StatusOr<const reader::Event*> next = (*reader)->Next();
      ASSERT_TRUE(next.ok()) << next.status();
      if (*next == nullptr) break;
      times.push_back((*next)->time);
    }
  }
  ASSERT_GT(times.size(), 1000u);
  const absl::Time first = times.front();
  const absl::Duration span = times.back() - first;
  const absl::Duration since_offset = times[times.size() * 2 / 5] - first + absl::Nanoseconds(1);
  const absl::Duration until_offset = times[times.size() * 3 / 5] - first - absl::Nanoseconds(1);
  const absl::Time since = first + since_offset;
  const absl::Time until = first + until_offset;
  auto overlaps = [&](absl::Time begin, absl::Time end) { return begin <= until && end >= since; };

  // What the window holds, from the reader's events.
  struct Task {
    absl::Time begin, end = absl::InfiniteFuture();
  };
  struct Segment {
    uint64_t task = 0;
    std::string thread;
    absl::Time begin, end = absl::InfiniteFuture();
  };
  std::map<uint64_t, Task> tasks;
  std::vector<Segment> segments;
  absl::flat_hash_map<uint64_t, size_t> open_segment;                   // by thread number
  absl::flat_hash_map<uint64_t, std::vector<absl::Time>> open_regions;  // by thread number
  json gauges = json::object();
  int64_t regions = 0;
  absl::StatusOr<std::unique_ptr<reader::Reader>> reader = reader::Reader::OpenFile(trace);
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto end_segment = [&](uint64_t thread, absl::Time at) {
    if (auto it = open_segment.find(thread); it != open_segment.end()) {
      segments[it->second].end = at;
      open_segment.erase(it);
    }
  };
  while (true) {
    absl::StatusOr<const reader::Event*> next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status();
    if (*next == nullptr) break;
    const reader::Event& e = **next;
    switch (e.kind) {
      case reader::EventKind::kTaskBegin:
        tasks[e.task_id].begin = e.time;
        break;
      case reader::EventKind::kTaskEnd:
        tasks[e.task_id].end = e.time;
        break;
      case reader::EventKind::kTaskAdopt:
        end_segment(e.thread_id, e.time);
        open_segment[e.thread_id] = segments.size();
        segments.push_back(Segment{e.task_id, std::string(e.thread_name), e.time, kNever});
        break;
      case reader::EventKind::kTaskRelease:
      case reader::EventKind::kThreadExit:
        end_segment(e.thread_id, e.time);
        break;
      case reader::EventKind::kRegionEnter:
        open_regions[e.thread_id].push_back(e.time);
        break;
      case reader::EventKind::kRegionLeave:
        if (!open_regions[e.thread_id].empty()) {
          regions += overlaps(open_regions[e.thread_id].back(), e.time);
          open_regions[e.thread_id].pop_back();
        }
        break;
      case reader::EventKind::kGauge:
        if (e.time >= since && e.time <= until) {
          std::string name = absl::StrCat(e.category, "/", e.label);
          if (e.unit.has_value()) absl::StrAppend(&name, " (", *e.unit, ")");
          gauges[name].push_back(e.value_int);
        }
        break;
      default:
        break;
    }
  }
  int64_t window_tasks = 0;
  int64_t cut_tasks = 0;  // active at an edge of the window
  for (const auto& [id, task] : tasks) {
    if (!overlaps(task.begin, task.end)) continue;
    ++window_tasks;
    cut_tasks += task.begin < since || task.end > until;
  }
  // A task's flow goes through its segments in the window that began while it was active.
  std::map<uint64_t, std::vector<std::pair<absl::Time, std::string>>> stops;
  int64_t window_segments = 0;
  for (const Segment& segment : segments) {
    if (!overlaps(segment.begin, segment.end)) continue;
    ++window_segments;
    auto task = tasks.find(segment.task);
    if (task == tasks.end() || !overlaps(task->second.begin, task->second.end) ||
        segment.begin > task->second.end) {
      continue;
    }
    stops[segment.task].emplace_back(std::max(segment.begin, since), segment.thread);
  }
  json hops = json::array();
  for (auto& [id, list] : stops) {
    if (list.size() < 2) continue;
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    json names = json::array();
    for (const auto& [time, thread] : list) names.push_back(thread);
    hops.push_back(names);
  }
  ASSERT_GT(window_tasks, 100) << "the window holds a part of the run";
  ASSERT_GT(cut_tasks, 0) << "tasks active at the window's edges";
  const json expected = {{"tasks", window_tasks},
                         {"ended", window_tasks},
                         {"hops", hops},
                         {"hops_any_order", true},
                         {"gauges", gauges},
                         {"excluded", "debug"},
                         {"slices", regions + window_segments}};
  const std::string expected_path = dir + "/expected.json";
  ASSERT_TRUE(cli_test::WriteFile(expected_path, expected.dump()));

  const std::string chrome = dir + "/window.json";
  const CommandResult decode =
      cli_test::RunCommand({cli_test::Tracewire(), "decode", "--format=chrome",
                            absl::StrCat("--since=", absl::ToInt64Nanoseconds(since_offset), "ns"),
                            absl::StrCat("--until=", absl::ToInt64Nanoseconds(until_offset), "ns"),
                            trace, "-o", chrome});
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  absl::StatusOr<CommandResult> consumers =
      consumers::RunNodeScript("task_consumers.mjs", {chrome, expected_path});
  ASSERT_TRUE(consumers.ok()) << consumers.status();
  ASSERT_EQ(consumers->exit_code, 0)
      << consumers->err << consumers->out << "\nwindow " << since_offset << " to " << until_offset
      << " of " << span << "; " << cli_test::ReadFile(chrome).size() << " bytes of Chrome JSON";
  const json summary = json::parse(consumers->out);
  EXPECT_EQ(summary["async_tasks"], window_tasks);
  EXPECT_EQ(summary["flows"], hops.size());
  EXPECT_EQ(summary["speedscope_calls"], regions + window_segments);
  EXPECT_EQ(summary["speedscope_warnings"], 0);
}

}  // namespace
}  // namespace tracewire::viewers_test
