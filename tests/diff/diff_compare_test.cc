// CompareSides on sides drawn from known distributions: the A/A false-positive rate over
// repeated comparisons of unchanged runs (run-to-run noise included) stays under the
// stated rate, a real change is found among many unchanged keys, and keys on one side are
// new or gone. Seeded: the same draws on every run.
#include "tools/analysis/diff_compare.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tracewire::tools {
namespace {

// A side of `runs` runs, each with `keys` regions of `instances` lognormal durations
// (median 1 ms, sigma 0.5), every run scaled as a whole by a factor of sd `run_noise`
// (the machine's load) and each tenth of a run's instances (in order) by one of sd `drift`
// (the load changing during the run); key 0 scaled by `change`.
DiffSide Side(std::mt19937_64& rng, int runs, int keys, int instances, double run_noise,
              double change = 1.0, double drift = 0) {
  std::lognormal_distribution<double> duration(std::log(1e6), 0.5);
  std::normal_distribution<double> load(1.0, run_noise);
  DiffSide side;
  for (int r = 0; r < runs; ++r) {
    RunValues run;
    const double factor = run_noise > 0 ? std::max(0.5, load(rng)) : 1.0;
    std::normal_distribution<double> stretch(1.0, drift);
    std::vector<double> stretches;
    for (int s = 0; s < 10; ++s) stretches.push_back(drift > 0 ? std::max(0.5, stretch(rng)) : 1);
    for (int k = 0; k < keys; ++k) {
      std::vector<double>& v = run.values[{DiffKind::kRegion, absl::StrCat("r", k)}];
      for (int i = 0; i < instances; ++i)
        v.push_back(duration(rng) * factor * stretches[i * 10 / instances] * (k == 0 ? change : 1));
    }
    side.runs.push_back(std::move(run));
  }
  return side;
}

// Over `trials` A/A comparisons: the share of comparisons with any key flagged.
double AaRate(uint64_t seed, int trials, int runs, int keys, int instances, double run_noise,
              double drift = 0, int blocks = 5) {
  std::mt19937_64 rng(seed);
  CompareOptions options;
  options.resamples = 100;
  options.blocks = blocks;
  int with_false_positive = 0;
  for (int t = 0; t < trials; ++t) {
    const DiffSide a = Side(rng, runs, keys, instances, run_noise, 1.0, drift);
    const DiffSide b = Side(rng, runs, keys, instances, run_noise, 1.0, drift);
    bool any = false;
    for (const KeyDiff& d : CompareSides(a, b, options)) any |= d.significant();
    with_false_positive += any;
  }
  return static_cast<double>(with_false_positive) / trials;
}

TEST(DiffCompareTest, AaFalsePositiveRateOneRunASide) {
  // Independent instances, one run a side, 25 keys: Benjamini–Hochberg at 5 % keeps the
  // chance of any false positive in a comparison at or under 5 %.
  const double rate = AaRate(1, 200, 1, 25, 100, 0);
  std::printf("A/A, 1 run a side, 25 keys: %.1f%% of comparisons flag a key\n", 100 * rate);
  EXPECT_LE(rate, 0.10);
}

TEST(DiffCompareTest, AaFalsePositiveRateWithRunToRunNoise) {
  // Every run 10 % slower or faster as a whole: instances alone would flag most keys; the
  // per-run test and the interval over runs keep comparisons of 5 runs a side quiet.
  const double rate = AaRate(2, 100, 5, 25, 20, 0.10);
  std::printf("A/A, 5 runs a side with 10%% run noise, 25 keys: %.1f%% of comparisons flag a key\n",
              100 * rate);
  EXPECT_LE(rate, 0.10);
}

TEST(DiffCompareTest, AaFalsePositiveRateOneRunWithDrift) {
  // One run a side whose load changes during the run (each tenth of it 15% slower or
  // faster, alike for every key): 1000 instances a key make the instances' test flag most
  // keys; the test over the runs' time-ordered blocks keeps the comparisons quiet.
  const double rate = AaRate(4, 40, 1, 10, 1000, 0, 0.15);
  // Without the blocks (the instances' test alone), about half the comparisons flag a key.
  const double unblocked = AaRate(4, 40, 1, 10, 1000, 0, 0.15, 0);
  std::printf(
      "A/A, 1 run a side drifting 15%%, 10 keys: %.1f%% of comparisons flag a key "
      "(%.1f%% without the blocks)\n",
      100 * rate, 100 * unblocked);
  EXPECT_LE(rate, 0.10);
  EXPECT_GE(unblocked, 0.3);
}

TEST(DiffCompareTest, ChangesUnderTheMinimumAreNeverSignificant) {
  std::mt19937_64 rng(5);
  // 8 runs a side, key r0 5% slower in every run, little noise: found with no minimum,
  // and not with the default 10%.
  const DiffSide a = Side(rng, 8, 5, 2000, 0.005);
  const DiffSide b = Side(rng, 8, 5, 2000, 0.005, 1.05);
  CompareOptions none;
  none.min_change = 0;
  const std::vector<KeyDiff> found = CompareSides(a, b, none);
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].name, "r0");
  EXPECT_EQ(found[0].verdict, DiffVerdict::kSlower);
  for (const KeyDiff& d : CompareSides(a, b, {})) EXPECT_FALSE(d.significant()) << d.name;
}

TEST(DiffCompareTest, OneRunASideFindsAChangeOverItsBlocks) {
  std::mt19937_64 rng(6);
  // One run a side, no drift, r0 25% slower: the block test passes it.
  const DiffSide a = Side(rng, 1, 10, 500, 0);
  const DiffSide b = Side(rng, 1, 10, 500, 0, 1.25);
  const std::vector<KeyDiff> diffs = CompareSides(a, b, {});
  ASSERT_FALSE(diffs.empty());
  EXPECT_EQ(diffs[0].name, "r0");
  EXPECT_EQ(diffs[0].verdict, DiffVerdict::kSlower);
  EXPECT_TRUE(diffs[0].blocks_tested);
  for (size_t i = 1; i < diffs.size(); ++i) EXPECT_FALSE(diffs[i].significant()) << diffs[i].name;
}

TEST(DiffCompareTest, FindsTheChangedKeyAmongMany) {
  std::mt19937_64 rng(3);
  // 8 runs a side: with 5, the per-run test's smallest p-value (2/252) cannot survive
  // the correction for 40 keys when only one changed.
  const DiffSide a = Side(rng, 8, 40, 200, 0.02);
  const DiffSide b = Side(rng, 8, 40, 200, 0.02, 1.3);
  const std::vector<KeyDiff> diffs = CompareSides(a, b, {});
  ASSERT_FALSE(diffs.empty());
  EXPECT_EQ(diffs[0].name, "r0");
  EXPECT_EQ(diffs[0].verdict, DiffVerdict::kSlower);
  EXPECT_TRUE(diffs[0].runs_tested);
  EXPECT_LE(diffs[0].interval.low, 0.3);
  EXPECT_GE(diffs[0].interval.high, 0.3);
  for (size_t i = 1; i < diffs.size(); ++i) EXPECT_FALSE(diffs[i].significant()) << diffs[i].name;
}

TEST(DiffCompareTest, NewAndGoneKeys) {
  DiffSide a, b;
  a.runs.emplace_back().values[{DiffKind::kTask, "only/base"}] = {1, 2, 3};
  b.runs.emplace_back().values[{DiffKind::kTask, "only/new"}] = {1, 2, 3};
  const std::vector<KeyDiff> diffs = CompareSides(a, b, {});
  ASSERT_EQ(diffs.size(), 2u);
  for (const KeyDiff& d : diffs) {
    EXPECT_EQ(d.verdict, d.name == "only/base" ? DiffVerdict::kVanished : DiffVerdict::kNew);
  }
}

}  // namespace
}  // namespace tracewire::tools
