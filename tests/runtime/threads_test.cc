// Many threads, thread churn and generation boundaries: nothing is lost and open regions
// are re-stated in every later generation.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
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

constexpr int kThreads = 8;
constexpr int kEventsPerThread = 100000 / kVolumeDivisor;
constexpr int kChurn = 4;  // each logical worker runs as this many consecutive threads
constexpr int kCuts = 20;  // explicit generation cuts by worker 0
constexpr int kCutEvery = kEventsPerThread / kCuts;
// The generation size limit. The runtime drops a generation that outgrows 8 size limits
// (at least 4 MiB) whole, which an overloaded machine can cause at any size limit by
// starving the background thread that cuts on size and time. The limit is chosen so that
// 8 of them exceed the whole trace (about 7 MB): no generation can reach that cap, so
// every missing event is a lost one. Generations are still cut by worker 0 (kCuts), by
// time and by size.
constexpr uint64_t kGenerationBytes = (2 << 20) / kVolumeDivisor;
constexpr uint64_t kGenerationMemoryLimit = std::max<uint64_t>(8 * kGenerationBytes, 4 << 20);

// One logical worker: kChurn short-lived threads that together record kEventsPerThread
// data_int events numbered 0..kEventsPerThread-1 (plus regions around every 10th).
void Worker(int worker) {
  const int per_thread = kEventsPerThread / kChurn;
  for (int round = 0; round < kChurn; ++round) {
    std::thread t([=] {
      const std::string name = "w" + std::to_string(worker);
      tracewire::ThreadScope scope(name.c_str());
      for (int i = 0; i < per_thread; ++i) {
        const int seq = round * per_thread + i;
        if (i % 10 == 0) tw_region_enter("load", "chunk", TW_NO_REPO);
        tw_data_intmax("load", TW_NO_REPO, "seq", static_cast<intmax_t>(worker) << 32 | seq);
        if (i % 10 == 9) tw_region_leave("load", "chunk", TW_NO_REPO);
        // Worker 0 also cuts generations while the others keep recording.
        if (worker == 0 && i % kCutEvery == kCutEvery - 1) tw_flush();
      }
    });
    t.join();
  }
}

int ManyThreads() {
  tw_initialize();
  std::vector<std::thread> workers;
  for (int w = 0; w < kThreads; ++w) workers.emplace_back(Worker, w);
  for (std::thread& t : workers) t.join();
  return 0;
}

TEST(ThreadsTest, EightThreadsWithChurnLoseNothing) {
  const std::string dir = MakeTempDir("threads");
  const int status = RunInChild({{"TRACEWIRE", dir},
                                 {"TRACEWIRE_GENERATION_BYTES", std::to_string(kGenerationBytes)},
                                 {"TRACEWIRE_GENERATION_MS", "50"}},
                                ManyThreads);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  printf("%llu bytes, %zu generations\n", static_cast<unsigned long long>(trace->total_bytes),
         trace->generations.size());
  // The premise: the whole trace fits under the memory limit of one generation.
  ASSERT_LT(trace->total_bytes, kGenerationMemoryLimit) << "the test records too much";
  // Generations numbered 1, 2, 3, ...: none was dropped.
  for (size_t i = 0; i < trace->generations.size(); ++i) {
    EXPECT_EQ(trace->generations[i].gen, i + 1) << "generation dropped";
  }
  // kCuts explicit cuts by worker 0, plus any by size and time.
  EXPECT_GE(trace->generations.size(), static_cast<size_t>(kCuts));

  std::map<int, std::vector<bool>> seen;
  std::set<uint64_t> thread_ids;
  std::map<std::string, int> thread_names;
  for (const DecodedGeneration& gen : trace->generations) {
    EXPECT_EQ(gen.clock_syncs, 1);
    for (const DecodedEvent& e : gen.events) {
      if (e.name == "thread_start") ++thread_names[*e.Str("name_string")];
      if (e.name != "data_int") continue;
      const int64_t value = format::ZigzagDecode(e.Arg("value"));
      const int worker = static_cast<int>(value >> 32);
      const int seq = static_cast<int>(value & 0xffffffff);
      ASSERT_GE(worker, 0);
      ASSERT_LT(worker, kThreads);
      std::vector<bool>& bits = seen[worker];
      bits.resize(kEventsPerThread);
      EXPECT_FALSE(bits[seq]) << "duplicate " << worker << ":" << seq;
      bits[seq] = true;
      thread_ids.insert(e.thread);
    }
  }
  ASSERT_EQ(seen.size(), static_cast<size_t>(kThreads));
  for (const auto& [worker, bits] : seen) {
    int count = 0;
    for (bool b : bits) count += b;
    EXPECT_EQ(count, kEventsPerThread) << "worker " << worker;
  }
  EXPECT_EQ(thread_ids.size(), static_cast<size_t>(kThreads * kChurn));
  EXPECT_EQ(thread_names.size(), static_cast<size_t>(kThreads * kChurn));  // thNN ids unique
}

int RegionAcrossGenerations() {
  tw_initialize();
  const int repo = tw_def_repo("/r");
  tw_region_enter("outer", "spanning", repo);
  tw_region_enter_printf("inner", "with_msg", TW_NO_REPO, "msg %d", 7);
  tw_flush();  // generation 1 ends with both regions open
  tw_data_intmax("inner", TW_NO_REPO, "in_gen2", 1);
  tw_flush();  // generation 2 too
  tw_region_leave("inner", "with_msg", TW_NO_REPO);
  tw_region_leave("outer", "spanning", repo);
  return 0;
}

TEST(ThreadsTest, OpenRegionsAreRestatedInLaterGenerations) {
  const std::string dir = MakeTempDir("restate");
  // Generations cut by tw_flush only (a slow run would get time cuts too).
  const int status = RunInChild({{"TRACEWIRE", dir}, {"TRACEWIRE_GENERATION_MS", "3600000"}},
                                RegionAcrossGenerations);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_EQ(trace->generations.size(), 3u);
  const std::vector<DecodedEvent> enters = trace->Events("region_enter");
  ASSERT_EQ(enters.size(), 2u);
  for (size_t g = 1; g < 3; ++g) {
    const DecodedGeneration& gen = trace->generations[g];
    // The main thread's stream starts with its status, then the open regions, outermost
    // first, each with the original enter time, site and message.
    ASSERT_GE(gen.events.size(), 3u);
    EXPECT_EQ(gen.events[0].name, "thread_status");
    EXPECT_EQ(gen.events[0].Str("name_string"), "main");
    const DecodedEvent& outer = gen.events[1];
    const DecodedEvent& inner = gen.events[2];
    EXPECT_EQ(outer.name, "region_active");
    EXPECT_EQ(outer.site.category, "outer");
    EXPECT_EQ(outer.site.label, "spanning");
    EXPECT_EQ(outer.site.repo, 2u);
    EXPECT_EQ(outer.Str("msg_string"), std::nullopt);
    EXPECT_EQ(outer.Arg("enter_time"), enters[0].time);
    EXPECT_EQ(inner.name, "region_active");
    EXPECT_EQ(inner.site.label, "with_msg");
    EXPECT_EQ(inner.Str("msg_string"), "msg 7");
    EXPECT_EQ(inner.Arg("enter_time"), enters[1].time);
  }
  // The leaves land in the last generation, which decodes on its own with its re-statement.
  const DecodedGeneration& last = trace->generations[2];
  std::vector<std::string> names;
  for (const DecodedEvent& e : last.events) names.push_back(e.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "region_leave"), names.end());
}

}  // namespace
}  // namespace tracewire::testing
