// The statistics of `tracewire diff` against known distributions: quantiles, the
// Mann–Whitney U test (exact tail probabilities, its false-positive rate on equal
// distributions and its power on shifted ones), Benjamini–Hochberg q-values, and the
// coverage of the bootstrap interval of a relative change. Every sample is drawn from a
// seeded generator: the results are the same on every run.
#include "tools/analysis/diff_stats.h"

#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tracewire::tools {
namespace {

std::vector<double> LogNormal(std::mt19937_64& rng, size_t n, double median, double sigma) {
  std::lognormal_distribution<double> d(std::log(median), sigma);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

TEST(DiffStatsTest, SummaryQuantilesInterpolate) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Summary s = Summarize(v);
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.total, 5050);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_NEAR(s.p95, 95.05, 1e-9);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);
  EXPECT_EQ(Summarize({}).count, 0u);
}

TEST(DiffStatsTest, MannWhitneyExactTails) {
  // Three against three, fully separated: U = 0, P(U <= 0) = 1 / C(6,3) = 1/20, two-sided 0.1.
  EXPECT_NEAR(MannWhitneyP({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_NEAR(MannWhitneyP({4, 5, 6}, {1, 2, 3}), 0.1, 1e-12);
  // Five against five, separated: 2 / C(10,5) = 2/252.
  EXPECT_NEAR(MannWhitneyP({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-12);
  // Interleaved perfectly: no evidence.
  EXPECT_NEAR(MannWhitneyP({1, 3, 5, 7}, {2, 4, 6, 8}), 1.0, 0.7);
  EXPECT_EQ(MannWhitneyP({}, {1, 2}), 1.0);
  // All tied: no evidence either way.
  EXPECT_EQ(MannWhitneyP({2, 2, 2, 2}, {2, 2, 2}), 1.0);
}

TEST(DiffStatsTest, MannWhitneyNormalApproximation) {
  // 30 against 30 (beyond the exact count): a_i = i, b_j = j + 15.5 for i, j in 0..29. U of
  // a counts the pairs with a_i > b_j: i - 15 of them for i = 16..29, 105 in all. Its mean
  // is 30 * 30 / 2 = 450 and its variance 30 * 30 * 61 / 12 = 4575 (no ties).
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(i + 15.5);
  }
  const double z = (450 - 105 - 0.5) / std::sqrt(4575.0);
  EXPECT_NEAR(MannWhitneyP(a, b), std::erfc(z / std::sqrt(2.0)), 1e-15);
  EXPECT_NEAR(MannWhitneyP(b, a), std::erfc(z / std::sqrt(2.0)), 1e-15);
  // Ties get mid-ranks and the tie correction: {1,1,2} against {2,3,3,3} (approximated,
  // as it has ties). Ranks 1.5 1.5 3.5 | 3.5 6 6 6: U of a = 6.5 - 6 = 0.5, mean 6,
  // ties sum(t^3 - t) = 6 + 6 + 24 = 36, variance 3*4/12 * (8 - 36 / 42).
  const double var = 1.0 * (8 - 36.0 / 42);
  const double zt = (6 - 0.5 - 0.5) / std::sqrt(var);
  EXPECT_NEAR(MannWhitneyP({1, 1, 2}, {2, 3, 3, 3}), std::erfc(zt / std::sqrt(2.0)), 1e-15);
}

TEST(DiffStatsTest, MannWhitneyFalsePositiveRateAndPower) {
  // Equal skewed distributions: p < 0.05 in about 5 % of the trials.
  std::mt19937_64 rng(11);
  constexpr int kTrials = 2000;
  int false_positives = 0, detected = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::vector<double> a = LogNormal(rng, 60, 1.0, 1.0);
    const std::vector<double> b = LogNormal(rng, 60, 1.0, 1.0);
    if (MannWhitneyP(a, b) < 0.05) ++false_positives;
    const std::vector<double> c = LogNormal(rng, 60, 2.0, 1.0);  // median twice as large
    if (MannWhitneyP(a, c) < 0.05) ++detected;
  }
  const double rate = static_cast<double>(false_positives) / kTrials;
  EXPECT_GT(rate, 0.03);
  EXPECT_LT(rate, 0.07);
  EXPECT_GT(static_cast<double>(detected) / kTrials, 0.95);
}

TEST(DiffStatsTest, StudentTailsAndWelch) {
  // df = 1 is the Cauchy distribution: P(|T| >= 1) = 1/2. df = 2: P(|T| >= t) =
  // 1 - t / sqrt(2 + t^2). Large df: the normal's 1.96 -> 0.05.
  EXPECT_NEAR(StudentTwoSidedP(1, 1), 0.5, 1e-12);
  EXPECT_NEAR(StudentTwoSidedP(2, 2), 1 - 2 / std::sqrt(6.0), 1e-12);
  EXPECT_NEAR(StudentTwoSidedP(1.959963984540054, 1e7), 0.05, 1e-6);
  EXPECT_NEAR(StudentTwoSidedP(0, 5), 1.0, 1e-12);
  // Welch over logs: log values {0, 2} against {1, 3} (e^x): means 1 and 2, variances 2,
  // t = 1 / sqrt(2/2 + 2/2) = 0.7071, df = 2.
  const double e = std::exp(1.0);
  EXPECT_NEAR(WelchLogP({1, e * e}, {e, e * e * e}), StudentTwoSidedP(1 / std::sqrt(2.0), 2),
              1e-12);
  EXPECT_EQ(WelchLogP({1}, {2, 3}), 1.0);
  EXPECT_EQ(WelchLogP({0, 1}, {2, 3}), 1.0);  // not all positive
  EXPECT_EQ(WelchLogP({2, 2}, {2, 2}), 1.0);
  EXPECT_EQ(WelchLogP({2, 2}, {3, 3}), 0.0);
  // Its false-positive rate on log-normal per-run totals, 5 runs a side: about 5 %.
  std::mt19937_64 rng(13);
  int false_positives = 0;
  constexpr int kTrials = 4000;
  for (int trial = 0; trial < kTrials; ++trial) {
    if (WelchLogP(LogNormal(rng, 5, 1.0, 0.2), LogNormal(rng, 5, 1.0, 0.2)) < 0.05) {
      ++false_positives;
    }
  }
  const double rate = static_cast<double>(false_positives) / kTrials;
  EXPECT_GT(rate, 0.03);
  EXPECT_LT(rate, 0.065);
}

TEST(DiffStatsTest, BenjaminiHochbergQValues) {
  const std::vector<double> q = BenjaminiHochberg({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(q.size(), 4u);
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_NEAR(q[1], 0.04, 1e-12);
  EXPECT_NEAR(q[2], 0.04, 1e-12);
  EXPECT_NEAR(q[3], 0.02, 1e-12);
  // Uniform p-values of 1000 null keys: (almost) nothing below 0.05.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> p(1000);
  for (double& x : p) x = u(rng);
  int discoveries = 0;
  for (double x : BenjaminiHochberg(p)) discoveries += x < 0.05;
  EXPECT_LE(discoveries, 1);
}

TEST(DiffStatsTest, BootstrapIntervalHoldsTheTrueChange) {
  // NEW is BASE's distribution 20 % slower (every value x 1.2): the interval of the ratio
  // of medians holds +20 % in about 95 % of the trials and excludes 0.
  std::mt19937_64 rng(5);
  constexpr int kTrials = 200;
  int covered = 0, excludes_zero = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::vector<double> base = LogNormal(rng, 400, 1.0, 0.4);
    std::vector<double> now = LogNormal(rng, 400, 1.0, 0.4);
    for (double& x : now) x *= 1.2;
    BootstrapOptions options;
    options.resamples = 300;
    options.seed = 100 + trial;
    const Interval i = BootstrapRelativeChange({base}, {now}, Statistic::kMedian, options);
    ASSERT_TRUE(i.valid);
    covered += i.low <= 0.2 && 0.2 <= i.high;
    excludes_zero += i.low > 0;
  }
  EXPECT_GE(covered, kTrials * 88 / 100);
  EXPECT_GE(excludes_zero, kTrials * 98 / 100);
}

TEST(DiffStatsTest, BootstrapOverRunsSeesRunToRunNoise) {
  // Each run is slower or faster as a whole (a machine's load): 5 runs a side whose medians
  // vary by +-30 %, and nothing changed. Drawing runs widens the interval to hold 0.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> run_factor(1.0, 0.3);
  auto side = [&] {
    std::vector<std::vector<double>> runs;
    for (int r = 0; r < 5; ++r) {
      std::vector<double> run = LogNormal(rng, 2000, 1.0, 0.2);
      const double f = std::max(0.2, run_factor(rng));
      for (double& x : run) x *= f;
      runs.push_back(run);
    }
    return runs;
  };
  int holds_zero = 0;
  for (int trial = 0; trial < 20; ++trial) {
    BootstrapOptions options;
    options.seed = trial;
    const Interval i = BootstrapRelativeChange(side(), side(), Statistic::kMedian, options);
    holds_zero += i.valid && i.low <= 0 && 0 <= i.high;
  }
  EXPECT_GE(holds_zero, 17);
}

TEST(DiffStatsTest, StatisticOfMedianAndMean) {
  std::vector<double> odd = {5, 1, 3};
  EXPECT_EQ(StatisticOf(Statistic::kMedian, odd), 3);
  std::vector<double> even = {4, 1, 3, 2};
  EXPECT_EQ(StatisticOf(Statistic::kMedian, even), 2.5);
  std::vector<double> mean = {1, 2, 6};
  EXPECT_EQ(StatisticOf(Statistic::kMean, mean), 3);
}

}  // namespace
}  // namespace tracewire::tools
