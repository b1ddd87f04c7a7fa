// The statistics `tracewire diff` compares two sides with: summaries of a sample
// (count, total, mean, p50, p95, p99), the Mann–Whitney U test, a bootstrap confidence
// interval of a relative change, and the Benjamini–Hochberg correction for testing many
// keys at once. Pure functions of their inputs; the bootstrap draws from a seeded
// generator, so every result is reproducible.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_DIFF_STATS_H_
#define TRACEWIRE_TOOLS_ANALYSIS_DIFF_STATS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace tracewire::tools {

// A sample summarised. Quantiles interpolate linearly between order statistics (the
// "type 7" estimator of R and NumPy); every field is 0 for an empty sample.
struct Summary {
  uint64_t count = 0;
  double total = 0;
  double mean = 0;
  double p50 = 0;
  double p95 = 0;
  double p99 = 0;
};

// The summary of `values` (any order).
Summary Summarize(absl::Span<const double> values);

// The q-quantile (0 <= q <= 1) of `sorted` (ascending, not empty), type 7.
double SortedQuantile(absl::Span<const double> sorted, double q);

// The two-sided p-value of the Mann–Whitney U test (Wilcoxon rank-sum) of `a` against
// `b`: the probability, if both are drawn from one distribution, of a rank sum at least
// as far from its expectation. Exact (the null distribution of U counted) when both
// samples have at most 25 values and no value is tied; otherwise the normal approximation
// with the tie correction and a continuity correction. 1 when either sample is empty.
double MannWhitneyP(absl::Span<const double> a, absl::Span<const double> b);

// The two-sided p-value of Welch's t-test (unequal variances, Welch–Satterthwaite degrees
// of freedom) of the logarithms of `a` against those of `b`: for per-run totals, whose
// run-to-run noise is multiplicative (a loaded machine makes a whole run slower by a
// factor), it assumes their logarithms roughly normal. Needs 2 or more values a side, all
// positive; otherwise (and when both sides are constant and equal) 1. Both sides constant
// and different: 0.
double WelchLogP(absl::Span<const double> a, absl::Span<const double> b);

// P(|T| >= t) for Student's t distribution with `df` (> 0) degrees of freedom.
double StudentTwoSidedP(double t, double df);

// Benjamini–Hochberg adjusted p-values (q-values) of `p`, in the same order: a key whose
// q is below alpha is a discovery at a false discovery rate of alpha.
std::vector<double> BenjaminiHochberg(absl::Span<const double> p);

// Which statistic a relative change compares.
enum class Statistic { kMedian, kMean };

// The statistic of `values` (not empty; reorders them).
double StatisticOf(Statistic statistic, std::vector<double>& values);

// A confidence interval of a relative change (0.2 = 20 % more).
struct Interval {
  double low = 0;
  double high = 0;
  bool valid = false;  // false if a side has under 2 values or most resamples a 0 base
};

// Options of the bootstrap.
struct BootstrapOptions {
  int resamples = 500;
  double confidence = 0.95;
  // Values drawn per side and resample at most (a large side is drawn in proportion to
  // its runs' sizes): bounds the cost on traces of millions of instances.
  size_t max_draws = 4000;
  uint64_t seed = 1;
};

// The percentile bootstrap interval of statistic(NEW) / statistic(BASE) - 1. Each side is
// a list of runs, each run a list of values; a resample draws the runs with replacement
// (when the side has more than one), then each drawn run's values with replacement, so
// that run-to-run noise widens the interval as it should.
Interval BootstrapRelativeChange(const std::vector<std::vector<double>>& base,
                                 const std::vector<std::vector<double>>& now, Statistic statistic,
                                 const BootstrapOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_DIFF_STATS_H_
