// Tasks, gauges and category filters in a traced child process, checked on the raw trace:
// task IDs, the events each call writes, the re-statement of active tasks and adopted tasks
// at every generation start (tasks of exited threads included, tasks ended elsewhere not),
// gauge samples with their unit, and that a filtered category leaves no event.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "format/varint.h"
#include "gtest/gtest.h"
#include "tests/runtime/test_scale.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

namespace tracewire::testing {
namespace {

// The child: main begins task 1 ("net"/"request"); worker A adopts it, records regions
// (one filtered), begins a child task and exits with it still active; a cut; worker B ends
// the request; a cut; gauges and filtered calls.
int TaskProgram() {
  tw_initialize();
  const int depth = tw_gauge_define("queue", "depth", "items");
  const int hidden_gauge = tw_gauge_define("noisy", "spins", nullptr);
  const int hidden_timer = tw_timer_define("noisy", "spin-time", 0);
  const uint64_t request = tw_task_begin(0, "net", "request");
  uint64_t child = 0;
  std::thread a([&] {
    tracewire::ThreadScope scope("a");
    tracewire::TaskScope works(request);
    tw_region_enter("net", "parse", TW_NO_REPO);
    tw_region_enter("noisy", "spin", TW_NO_REPO);
    tw_region_leave("noisy", "spin", TW_NO_REPO);
    tw_data_intmax("noisy", TW_NO_REPO, "spins", 3);
    tw_region_leave("net", "parse", TW_NO_REPO);
    child = tw_task_begin(request, "net", "decode");
    tw_flush();  // generation 1 ends: task 1 and its adoption are re-stated
  });
  a.join();
  tw_flush();  // thread a has exited: its child task is re-stated by main
  std::thread b([&] {
    tracewire::ThreadScope scope("b");
    tw_task_end(request);
  });
  b.join();
  tw_flush();  // the request has ended: not re-stated any more
  for (int i = 0; i < 5; ++i) tw_gauge_set(depth, 10 - 3 * i);
  tw_gauge_set(hidden_gauge, 1);
  tw_timer_start(hidden_timer);
  tw_timer_stop(hidden_timer);
  tw_data_intmax("check", TW_NO_REPO, "noisy_enabled", tw_category_enabled("noisy"));
  tw_data_intmax("check", TW_NO_REPO, "net_enabled", tw_category_enabled("net"));
  tw_data_intmax("check", TW_NO_REPO, "noisy_task",
                 static_cast<intmax_t>(tw_task_begin(0, "noisy", "x")));
  tw_data_intmax("check", TW_NO_REPO, "child", static_cast<intmax_t>(child));
  tw_task_end(child);
  return tw_cmd_exit(0);
}

TEST(TasksTest, TasksGaugesAndFiltersInTheTrace) {
  const std::string dir = MakeTempDir("tasks");
  const int status = RunInChild({{"TRACEWIRE", dir},
                                 {"TRACEWIRE_CATEGORIES", "*, -noisy"},
                                 {"TRACEWIRE_GENERATION_MS", "60000"}},
                                TaskProgram);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_GE(trace->generations.size(), 4u);

  // The filtered category left nothing anywhere: no site names it.
  for (const DecodedEvent& e : trace->AllEvents()) {
    EXPECT_NE(e.site.category.value_or(""), "noisy") << e.name;
  }
  std::map<std::string, int64_t> checks;
  for (const DecodedEvent& e : trace->Events("data_int")) {
    checks[e.site.label.value_or("")] = format::ZigzagDecode(e.Arg("value"));
  }
  EXPECT_EQ(checks["noisy_enabled"], 0);
  EXPECT_EQ(checks["net_enabled"], 1);
  EXPECT_EQ(checks["noisy_task"], 0);
  EXPECT_TRUE(trace->Events("timer").empty());

  // Generation 1: the begins, the adoption, the worker's region (not the filtered one).
  const std::vector<DecodedEvent> begins = trace->Events("task_begin");
  ASSERT_EQ(begins.size(), 2u);
  const uint64_t request = begins[0].Arg("task");
  const uint64_t child = begins[1].Arg("task");
  EXPECT_NE(request, 0u);
  EXPECT_NE(child, request);
  EXPECT_EQ(static_cast<int64_t>(child), checks["child"]);
  EXPECT_EQ(begins[0].Arg("parent"), 0u);
  EXPECT_EQ(begins[1].Arg("parent"), request);
  EXPECT_EQ(begins[0].site.category, "net");
  EXPECT_EQ(begins[0].site.label, "request");
  EXPECT_EQ(begins[1].site.label, "decode");
  const std::vector<DecodedEvent> adopts = trace->Events("task_adopt");
  ASSERT_EQ(adopts.size(), 1u);
  EXPECT_EQ(adopts[0].Arg("task"), request);
  EXPECT_NE(adopts[0].thread, 0u);
  const std::vector<DecodedEvent> releases = trace->Events("task_release");
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].Arg("task"), request);
  EXPECT_EQ(releases[0].thread, adopts[0].thread);
  EXPECT_EQ(trace->Events("region_enter").size(), 1u);

  // Re-statements: generation 2 re-states the request (main) and the child task (thread a,
  // which began it) and a's adoption; generation 3 re-states the child task on main (a
  // has exited) and the request; generation 4 only the child task (the request ended).
  auto restated = [&](size_t gen) {
    std::multiset<uint64_t> tasks;
    for (const DecodedEvent& e : trace->generations[gen].events) {
      if (e.name == "task_active") tasks.insert(e.Arg("task"));
    }
    return tasks;
  };
  auto adopted = [&](size_t gen) {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const DecodedEvent& e : trace->generations[gen].events) {
      if (e.name == "task_adopted") out.emplace_back(e.thread, e.Arg("task"));
    }
    return out;
  };
  EXPECT_EQ(restated(1), (std::multiset<uint64_t>{request, child}));
  EXPECT_EQ(adopted(1), (std::vector<std::pair<uint64_t, uint64_t>>{{adopts[0].thread, request}}));
  EXPECT_EQ(restated(2), (std::multiset<uint64_t>{request, child}));
  EXPECT_TRUE(adopted(2).empty());
  EXPECT_EQ(restated(3), (std::multiset<uint64_t>{child}));
  for (const DecodedEvent& e : trace->generations[2].events) {
    if (e.name == "task_active") {
      EXPECT_EQ(e.thread, 0u);  // the orphaned child task is re-stated by main
      if (e.Arg("task") == child) {
        EXPECT_EQ(e.Arg("parent"), request);
        EXPECT_EQ(e.Arg("begin_time"), begins[1].time);
        EXPECT_EQ(e.site.label, "decode");
      }
    }
  }
  const std::vector<DecodedEvent> ends = trace->Events("task_end");
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0].Arg("task"), request);
  EXPECT_EQ(ends[1].Arg("task"), child);

  // Gauges: every sample of the recorded gauge, with its unit; none of the filtered one.
  const std::vector<DecodedEvent> samples = trace->Events("gauge");
  ASSERT_EQ(samples.size(), 5u);
  for (size_t i = 0; i < samples.size(); ++i) {
    EXPECT_EQ(format::ZigzagDecode(samples[i].Arg("value")), 10 - 3 * static_cast<int>(i));
    EXPECT_EQ(samples[i].Str("unit_string"), "items");
    EXPECT_EQ(samples[i].site.category, "queue");
    EXPECT_EQ(samples[i].site.label, "depth");
  }
}

// Tasks begun on one thread and ended on another while generations are cut: each end is
// noted in the ending thread's state inside an event and read by the generation switch
// (the in_event handshake), which re-states the tasks still active. Under ThreadSanitizer
// a dropped release or acquire on either side of the handshake is reported as a race.
constexpr int kHandoffPairs = 4;
constexpr int kHandoffTasks = 4000 / kVolumeDivisor;
constexpr int kHandoffBurst = 20;

// A queue of task IDs from a beginning thread to an ending one.
struct TaskQueue {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<uint64_t> ids;
  bool done = false;
};

int HandoffProgram() {
  tw_initialize();
  std::vector<TaskQueue> queues(kHandoffPairs);
  std::vector<std::thread> threads;
  std::atomic<int> enders_left{kHandoffPairs};
  for (int p = 0; p < kHandoffPairs; ++p) {
    TaskQueue& q = queues[p];
    threads.emplace_back([&q, p] {
      const std::string name = "begin" + std::to_string(p);
      tracewire::ThreadScope scope(name.c_str());
      for (int i = 0; i < kHandoffTasks; ++i) {
        const uint64_t id = tw_task_begin(0, "net", "hop");
        {
          std::lock_guard<std::mutex> lock(q.mu);
          q.ids.push_back(id);
          q.cv.notify_one();
        }
        // In bursts, so that the ending thread is often idle (outside any event) when a
        // cut comes: then only EndEvent's release hands its ends to the switch.
        if (i % kHandoffBurst == kHandoffBurst - 1) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }
      std::lock_guard<std::mutex> lock(q.mu);
      q.done = true;
      q.cv.notify_one();
    });
    threads.emplace_back([&q, &enders_left, p] {
      const std::string name = "end" + std::to_string(p);
      tracewire::ThreadScope scope(name.c_str());
      for (;;) {
        std::unique_lock<std::mutex> lock(q.mu);
        q.cv.wait(lock, [&q] { return q.done || !q.ids.empty(); });
        if (q.ids.empty()) break;
        const uint64_t id = q.ids.front();
        q.ids.pop_front();
        lock.unlock();
        tw_task_end(id);
      }
      enders_left.fetch_sub(1, std::memory_order_release);  // release: the loop below ends
    });
  }
  // The calling thread cuts generations while the others begin and end tasks, at least
  // kMinCuts of them (each after an event of its own, so that each makes a generation),
  // paced so that the trace holds tens of generations, not thousands.
  constexpr int kMinCuts = 8;
  for (int cut = 0; cut < kMinCuts || enders_left.load(std::memory_order_acquire) != 0; ++cut) {
    tw_data_intmax("check", TW_NO_REPO, "cut", cut);
    tw_flush();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (std::thread& t : threads) t.join();
  return tw_cmd_exit(0);
}

TEST(TasksTest, TasksEndedOnOtherThreadsWhileGenerationsAreCut) {
  const std::string dir = MakeTempDir("task_handoff");
  const int status =
      RunInChild({{"TRACEWIRE", dir}, {"TRACEWIRE_GENERATION_MS", "60000"}}, HandoffProgram);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_GE(trace->generations.size(), 8u);

  // The generation of each task's begin and end, and the generations re-stating it.
  std::map<uint64_t, size_t> begun;
  std::map<uint64_t, size_t> ended;
  std::map<uint64_t, std::set<size_t>> restated;
  for (size_t g = 0; g < trace->generations.size(); ++g) {
    for (const DecodedEvent& e : trace->generations[g].events) {
      if (e.name == "task_begin") {
        EXPECT_TRUE(begun.emplace(e.Arg("task"), g).second) << e.Arg("task");
      } else if (e.name == "task_end") {
        EXPECT_TRUE(ended.emplace(e.Arg("task"), g).second) << e.Arg("task");
      } else if (e.name == "task_active") {
        restated[e.Arg("task")].insert(g);
      }
    }
  }
  ASSERT_EQ(begun.size(), static_cast<size_t>(kHandoffPairs * kHandoffTasks));
  ASSERT_EQ(ended.size(), begun.size());
  size_t crossing = 0;
  for (const auto& [task, begin_gen] : begun) {
    ASSERT_TRUE(ended.contains(task)) << task;
    const size_t end_gen = ended[task];
    ASSERT_GE(end_gen, begin_gen) << task;
    // Re-stated in every generation after its begin up to the one that holds its end,
    // never after: the end noted on another thread is reconciled at the next cut.
    std::set<size_t> expected;
    for (size_t g = begin_gen + 1; g <= end_gen; ++g) expected.insert(g);
    EXPECT_EQ(restated[task], expected) << "task " << task;
    if (end_gen > begin_gen) ++crossing;
  }
  RecordProperty("tasks_crossing_a_cut", static_cast<int>(crossing));
}

// Tracing off: every call is a no-op and task_begin returns 0.
TEST(TasksTest, NothingWhenTracingIsOff) {
  EXPECT_EQ(tw_task_begin(0, "net", "request"), 0u);
  tw_task_adopt(5);
  tw_task_release();
  tw_task_end(5);
  const int gauge = tw_gauge_define("queue", "depth", "items");
  EXPECT_GE(gauge, 0);
  tw_gauge_set(gauge, 3);
  EXPECT_EQ(tw_category_enabled("net"), 0);
  tracewire::Task task("net", "request");
  EXPECT_EQ(task.id(), 0u);
}

}  // namespace
}  // namespace tracewire::testing
