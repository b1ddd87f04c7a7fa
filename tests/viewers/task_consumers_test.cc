// The thread-pool example (examples/threadpool: an acceptor, 4 workers and a writer; every
// request a task crossing three threads; three gauges sampled at every change; the "debug"
// category excluded with TRACEWIRE_CATEGORIES) exported with `tracewire decode
// --format=chrome` and read by the DevTools trace engine and speedscope
// (tests/consumers/task_consumers.mjs). The expectations come from the reader's events.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
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

TEST(TaskConsumersTest, ThreadPoolTasksFlowsAndGauges) {
  const std::string dir = cli_test::NewTempDir("threadpool");
  const std::string trace = dir + "/trace.twr";
  cli_test::RunOptions options;
  options.env = {{"TRACEWIRE", trace}, {"TRACEWIRE_CATEGORIES", "*,-debug"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  const CommandResult run = cli_test::RunCommand(
      {Runfile("examples/threadpool/threadpool"), absl::StrCat(kRequests)}, options);
  ASSERT_EQ(run.exit_code, 0) << run.err;

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

}  // namespace
}  // namespace tracewire::viewers_test
