// The trace clock of the architecture the test is built for: x86-64's TSC, aarch64's
// CNTVCT_EL0, or CLOCK_MONOTONIC (other architectures, and builds with
// TRACEWIRE_GENERIC_CLOCK, which `bazel test --config=genericclock` sets on x86-64).
#include "runtime/clock.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "gtest/gtest.h"

namespace tracewire::runtime {
namespace {

// TRACEWIRE_CLOCK=monotonic chooses CLOCK_MONOTONIC on every architecture. In a child
// process, forked before any test of this file has chosen the clock (this test is first).
TEST(ClockMonotonicTest, MonotonicIsChosenWhenAskedFor) {
  EXPECT_EXIT(
      {
        setenv("TRACEWIRE_CLOCK", "monotonic", 1);
        InitClock();
        const bool monotonic = !g_clock_is_counter && TakeClockSync().freq == 1'000'000'000u;
        std::_Exit(monotonic ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// The clock is a process-wide choice made once: these tests keep the default.
class ClockTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv("TRACEWIRE_CLOCK"); }
};

TEST_F(ClockTest, TheCounterIsChosenWhenTheArchitectureHasOne) {
  InitClock();
  EXPECT_EQ(g_clock_is_counter, counter::kAvailable && counter::Usable());
#if defined(TRACEWIRE_GENERIC_CLOCK)
  EXPECT_FALSE(counter::kAvailable);
#elif defined(__x86_64__) || defined(__aarch64__)
  EXPECT_TRUE(counter::kAvailable);
#endif
#if defined(__aarch64__) && !defined(TRACEWIRE_GENERIC_CLOCK)
  EXPECT_NE(counter::NominalRate(), 0u);  // CNTFRQ_EL0 is set (62.5 MHz under qemu)
#endif
}

// Readings never go back on one thread, and they advance.
TEST_F(ClockTest, TicksAreMonotonicOnEachThread) {
  InitClock();
  auto check = [] {
    uint64_t last = ReadTicks();
    for (int i = 0; i < 200'000; ++i) {
      const uint64_t now = ReadTicks();
      ASSERT_GE(now, last);
      last = now;
    }
  };
  std::thread other(check);
  check();
  other.join();
  const uint64_t before = ReadTicks();
  const uint64_t mono = MonotonicNanos();
  while (MonotonicNanos() - mono < 2'000'000) {
  }
  EXPECT_GT(ReadTicks(), before);
}

// Without a counter the ticks are CLOCK_MONOTONIC nanoseconds; with one, the calibrated rate
// turns a span of ticks into the same span of CLOCK_MONOTONIC (compared over the longest of
// a few spans of at least 20 ms, so that a preemption between two reads weighs little).
TEST_F(ClockTest, TheRateTurnsTicksIntoMonotonicTime) {
  InitClock();
  if (!g_clock_is_counter) {
    const uint64_t before = MonotonicNanos();
    const uint64_t ticks = ReadTicks();
    const uint64_t after = MonotonicNanos();
    EXPECT_GE(ticks, before);
    EXPECT_LE(ticks, after);
    EXPECT_EQ(TakeClockSync().freq, 1'000'000'000u);
    return;
  }
  double best_error = 1e9;
  for (int attempt = 0; attempt < 5 && best_error > 0.02; ++attempt) {
    const uint64_t mono0 = MonotonicNanos();
    const uint64_t ticks0 = ReadTicks();
    while (MonotonicNanos() - mono0 < 20'000'000) {
    }
    const format::ClockSync sync = TakeClockSync();
    ASSERT_NE(sync.freq, 0u);
    const double span_ns = static_cast<double>(sync.mono_ns - mono0);
    const double ticks_ns = static_cast<double>(sync.trace_time - ticks0) * 1e9 / sync.freq;
    const double error = std::abs(ticks_ns - span_ns) / span_ns;
    if (error < best_error) best_error = error;
  }
  EXPECT_LT(best_error, 0.02);
}

}  // namespace
}  // namespace tracewire::runtime
