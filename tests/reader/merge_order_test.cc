// The order in which the reader merges the threads of a generation: by time, equal times
// in ascending thread number, each thread's records in stream order. Random traces with 1
// to 12 threads (the small-thread merge and the heap), several batches per thread in
// shuffled file order, many equal times across threads, threads whose streams are empty,
// and runs of one thread, checked against a stable sort.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::BatchFrame;
using ::tracewire::testing::GenBuilder;
using ::tracewire::testing::Rec;
using ::tracewire::testing::Trace;
using E = format::EventType;

// One delivered (or expected) event: thread, time, and the value that numbers it within
// its thread.
using Key = std::tuple<uint64_t, uint64_t, int64_t>;

struct RandomTrace {
  std::string bytes;
  std::vector<Key> expected;  // in merge order
};

// `generations` generations of `threads` threads with random thread numbers. Each
// thread's times advance by 1-`max_dt` ticks (small values give many ties) and sometimes
// jump ahead (runs of one thread).
RandomTrace MakeTrace(std::mt19937_64& rng, int threads, int generations, uint64_t max_dt) {
  RandomTrace out;
  std::vector<uint64_t> ids;
  while (ids.size() < static_cast<size_t>(threads)) {
    const uint64_t id = rng() % 40;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
  }
  std::vector<std::string> gens;
  uint64_t start = 2000;
  for (int gen = 1; gen <= generations; ++gen) {
    GenBuilder g(gen);
    const uint64_t site = g.Site("m.c", 3, "cat", "v");
    std::vector<std::vector<std::string>> per_thread(ids.size());
    std::vector<std::tuple<uint64_t, uint64_t, int64_t>> records;  // time, thread, value
    uint64_t end = start;
    for (size_t t = 0; t < ids.size(); ++t) {
      const uint64_t id = ids[t];
      const int batches = static_cast<int>(rng() % 4);  // 0: an absent thread
      uint64_t time = start + rng() % 3;
      int64_t value = 0;
      for (int b = 0; b < batches; ++b) {
        const uint64_t base = time;
        std::string body;
        const int events = static_cast<int>(rng() % 40);  // 0: an empty batch
        for (int i = 0; i < events; ++i) {
          uint64_t dt = 1 + rng() % max_dt;
          if (rng() % 16 == 0) dt += rng() % 200;  // a run of this thread
          time += dt;
          body += Rec(E::kDataInt, {dt, site, format::ZigzagEncode(value)});
          records.emplace_back(time, id, value);
          ++value;
        }
        per_thread[t].push_back(BatchFrame(gen, id, base, body));
      }
      end = std::max(end, time);
    }
    // Shuffle the batches across threads, keeping each thread's batches in order.
    std::vector<std::string> shuffled;
    std::vector<size_t> next(ids.size(), 0);
    while (true) {
      std::vector<size_t> left;
      for (size_t t = 0; t < ids.size(); ++t) {
        if (next[t] < per_thread[t].size()) left.push_back(t);
      }
      if (left.empty()) break;
      const size_t t = left[rng() % left.size()];
      shuffled.push_back(per_thread[t][next[t]++]);
    }
    std::string batches;
    for (const std::string& frame : shuffled) batches += frame;
    g.AddFrames(batches);
    gens.push_back(g.Finish());
    std::stable_sort(records.begin(), records.end(), [](const auto& x, const auto& y) {
      return std::tie(std::get<0>(x), std::get<1>(x)) < std::tie(std::get<0>(y), std::get<1>(y));
    });
    for (const auto& [time, id, value] : records) out.expected.emplace_back(id, time, value);
    start = end + 10;
  }
  out.bytes = Trace(gens);
  return out;
}

std::vector<Key> ReadKeys(const std::string& bytes, ReaderOptions options, absl::Status* status) {
  std::vector<Key> keys;
  Reader r(MemorySource(bytes), options);
  while (true) {
    absl::StatusOr<const Event*> event = r.Next();
    if (!event.ok()) {
      *status = event.status();
      break;
    }
    if (*event == nullptr) break;
    keys.emplace_back((*event)->thread_id, (*event)->ticks,
                      options.count_only ? 0 : (*event)->value_int);
  }
  return keys;
}

TEST(MergeOrderTest, ByTimeThenThreadNumberForEveryThreadCount) {
  std::mt19937_64 rng(20261123);
  for (int threads = 1; threads <= 12; ++threads) {
    for (const uint64_t max_dt : {uint64_t{1}, uint64_t{3}, uint64_t{50}}) {
      for (int round = 0; round < 8; ++round) {
        SCOPED_TRACE(absl::StrCat("threads ", threads, ", max_dt ", max_dt, ", round ", round));
        const RandomTrace trace = MakeTrace(rng, threads, 3, max_dt);
        absl::Status status;
        const std::vector<Key> got = ReadKeys(trace.bytes, {}, &status);
        ASSERT_TRUE(status.ok()) << status;
        ASSERT_EQ(got.size(), trace.expected.size());
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(got[i], trace.expected[i]) << "event " << i;
        }
        // Count-only and salvage reads merge the same way.
        ReaderOptions count_only;
        count_only.count_only = true;
        const std::vector<Key> counted = ReadKeys(trace.bytes, count_only, &status);
        ASSERT_TRUE(status.ok()) << status;
        ASSERT_EQ(counted.size(), got.size());
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(std::get<0>(counted[i]), std::get<0>(got[i])) << "event " << i;
          ASSERT_EQ(std::get<1>(counted[i]), std::get<1>(got[i])) << "event " << i;
        }
        ReaderOptions salvage;
        salvage.salvage = true;
        ASSERT_EQ(ReadKeys(trace.bytes, salvage, &status), got);
        ASSERT_TRUE(status.ok()) << status;
      }
    }
  }
}

}  // namespace
}  // namespace tracewire::reader
