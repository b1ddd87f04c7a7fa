// FlightRing: the flight recorder's memory. Checked against a model of what it must keep:
// the newest generations whole, in order, with their bytes intact, within the capacity.
#include "runtime/flight_ring.h"

#include <sys/uio.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tracewire::runtime {
namespace {

// A generation's bytes: `size` bytes derived from its number, so that any overwrite shows.
std::string GenerationBytes(uint64_t gen, size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>((gen * 131 + i * 7) & 0xff);
  return bytes;
}

// Stores `bytes` as generation `gen`, split into up to three pieces as a generation's frames
// are.
void StoreInPieces(FlightRing& ring, uint64_t gen, const std::string& bytes) {
  iovec pieces[3];
  const size_t third = bytes.size() / 3;
  const size_t cuts[4] = {0, third, 2 * third, bytes.size()};
  for (int i = 0; i < 3; ++i) {
    pieces[i].iov_base = const_cast<char*>(bytes.data() + cuts[i]);
    pieces[i].iov_len = cuts[i + 1] - cuts[i];
  }
  ring.Store(gen, pieces, 3);
}

std::vector<uint64_t> KeptGenerations(const FlightRing& ring) {
  std::vector<uint64_t> gens;
  for (size_t i = 0; i < ring.size(); ++i) gens.push_back(ring.Get(i).gen);
  return gens;
}

TEST(FlightRingTest, KeepsTheNewestGenerationsAndDropsTheOldestFirst) {
  FlightRing ring;
  ASSERT_TRUE(ring.Init(1000));
  EXPECT_TRUE(ring.enabled());
  EXPECT_EQ(ring.size(), 0u);
  for (uint64_t gen = 1; gen <= 3; ++gen) StoreInPieces(ring, gen, GenerationBytes(gen, 300));
  EXPECT_EQ(KeptGenerations(ring), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(ring.bytes(), 900u);
  // The fourth does not fit after the third: it wraps to the start, over the first.
  StoreInPieces(ring, 4, GenerationBytes(4, 300));
  EXPECT_EQ(KeptGenerations(ring), (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(ring.bytes(), 900u);
  for (size_t i = 0; i < ring.size(); ++i) {
    const FlightRing::Entry entry = ring.Get(i);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(entry.bytes), entry.size),
              GenerationBytes(entry.gen, 300))
        << "generation " << entry.gen;
  }
}

TEST(FlightRingTest, AGenerationLargerThanTheRingIsDroppedAndTheOthersKept) {
  FlightRing ring;
  ASSERT_TRUE(ring.Init(4096));
  StoreInPieces(ring, 1, GenerationBytes(1, 1000));
  StoreInPieces(ring, 2, GenerationBytes(2, 5000));
  EXPECT_EQ(ring.dropped_too_big(), 1u);
  StoreInPieces(ring, 3, GenerationBytes(3, 1000));
  EXPECT_EQ(KeptGenerations(ring), (std::vector<uint64_t>{1, 3}));
  // Exactly the capacity fits, alone.
  StoreInPieces(ring, 4, GenerationBytes(4, 4096));
  EXPECT_EQ(KeptGenerations(ring), (std::vector<uint64_t>{4}));
  EXPECT_EQ(ring.dropped_too_big(), 1u);
  const FlightRing::Entry entry = ring.Get(0);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(entry.bytes), entry.size),
            GenerationBytes(4, 4096));
}

TEST(FlightRingTest, AnEmptyGenerationIsKept) {
  FlightRing ring;
  ASSERT_TRUE(ring.Init(100));
  ring.Store(7, nullptr, 0);
  ASSERT_EQ(ring.size(), 1u);
  EXPECT_EQ(ring.Get(0).gen, 7u);
  EXPECT_EQ(ring.Get(0).size, 0u);
}

TEST(FlightRingTest, KeepsAtMostMaxGenerations) {
  FlightRing ring;
  ASSERT_TRUE(ring.Init(1 << 20));
  const uint64_t stored = FlightRing::kMaxGenerations + 10;
  for (uint64_t gen = 1; gen <= stored; ++gen) StoreInPieces(ring, gen, GenerationBytes(gen, 8));
  ASSERT_EQ(ring.size(), FlightRing::kMaxGenerations);
  EXPECT_EQ(ring.Get(0).gen, stored - FlightRing::kMaxGenerations + 1);
  EXPECT_EQ(ring.Get(ring.size() - 1).gen, stored);
}

// Random sizes against the model: what is kept is the newest storable generations in order,
// intact, not overlapping, within the capacity, and at least every newest generation whose
// sizes sum to half the capacity (the wrap wastes at most one generation's size).
TEST(FlightRingTest, RandomSizesMatchTheModel) {
  for (const uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    std::mt19937 random(seed);
    const size_t capacity = 1000 + random() % 100000;
    FlightRing ring;
    ASSERT_TRUE(ring.Init(capacity));
    std::vector<std::pair<uint64_t, size_t>> storable;  // stored generations that fit
    uint64_t too_big = 0;
    for (uint64_t gen = 1; gen <= 3000; ++gen) {
      // Mostly small, sometimes near or above the capacity.
      const size_t size =
          random() % 10 == 0 ? random() % (capacity + capacity / 4) : random() % (capacity / 6 + 1);
      StoreInPieces(ring, gen, GenerationBytes(gen, size));
      if (size > capacity) {
        ++too_big;
      } else {
        storable.emplace_back(gen, size);
      }
      ASSERT_EQ(ring.dropped_too_big(), too_big);
      ASSERT_EQ(ring.size() == 0, storable.empty());

      // The kept ones are the newest storable generations, in order.
      const size_t kept = ring.size();
      ASSERT_LE(kept, storable.size());
      size_t total = 0;
      std::vector<std::pair<const uint8_t*, size_t>> spans;
      for (size_t i = 0; i < kept; ++i) {
        const FlightRing::Entry entry = ring.Get(i);
        const auto& [want_gen, want_size] = storable[storable.size() - kept + i];
        ASSERT_EQ(entry.gen, want_gen) << "seed " << seed << " after generation " << gen;
        ASSERT_EQ(entry.size, want_size);
        ASSERT_EQ(std::string(reinterpret_cast<const char*>(entry.bytes), entry.size),
                  GenerationBytes(entry.gen, entry.size))
            << "seed " << seed << ": generation " << entry.gen << " was overwritten";
        total += entry.size;
        spans.emplace_back(entry.bytes, entry.size);
      }
      ASSERT_EQ(ring.bytes(), total);
      ASSERT_LE(total, capacity);
      for (size_t i = 0; i < spans.size(); ++i) {
        for (size_t j = i + 1; j < spans.size(); ++j) {
          const bool apart = spans[i].first + spans[i].second <= spans[j].first ||
                             spans[j].first + spans[j].second <= spans[i].first;
          ASSERT_TRUE(apart || spans[i].second == 0 || spans[j].second == 0);
        }
      }
      // Every newest generation within half the capacity is kept.
      size_t newest_sum = 0;
      size_t must_keep = 0;
      for (size_t i = storable.size(); i-- > 0;) {
        newest_sum += storable[i].second;
        if (2 * newest_sum > capacity) break;
        ++must_keep;
      }
      ASSERT_GE(kept, std::min<size_t>(std::max<size_t>(must_keep, 1), storable.size()))
          << "seed " << seed << " generation " << gen;
    }
  }
}

}  // namespace
}  // namespace tracewire::runtime
