#include "tools/analysis/diff_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

namespace tracewire::tools {
namespace {

// Samples up to this size with no ties get the exact null distribution of U.
constexpr size_t kExactLimit = 25;

// P(U <= u) under the null hypothesis for samples of sizes n1 and n2, counted: the
// arrangements of n1 + n2 ranks with U = k satisfy c(m, n, k) = c(m - 1, n, k - n) +
// c(m, n - 1, k), over every arrangement (C(n1 + n2, n1)).
double ExactLowerTail(size_t n1, size_t n2, double u) {
  // counts[m][n] holds c(m, n, k) for k = 0 .. m * n.
  std::vector<std::vector<std::vector<double>>> counts(n1 + 1,
                                                       std::vector<std::vector<double>>(n2 + 1));
  for (size_t m = 0; m <= n1; ++m) {
    for (size_t n = 0; n <= n2; ++n) {
      std::vector<double>& c = counts[m][n];
      c.assign(m * n + 1, 0.0);
      if (m == 0 || n == 0) {
        c[0] = 1;
        continue;
      }
      const std::vector<double>& drop_a = counts[m - 1][n];  // the largest rank is a's
      const std::vector<double>& drop_b = counts[m][n - 1];  // the largest rank is b's
      for (size_t k = 0; k < drop_a.size(); ++k) c[k + n] += drop_a[k];
      for (size_t k = 0; k < drop_b.size(); ++k) c[k] += drop_b[k];
    }
  }
  const std::vector<double>& c = counts[n1][n2];
  double all = 0, below = 0;
  for (size_t k = 0; k < c.size(); ++k) {
    all += c[k];
    if (static_cast<double>(k) <= u + 1e-9) below += c[k];
  }
  return below / all;
}

double Clamp01(double p) { return std::min(1.0, std::max(0.0, p)); }

}  // namespace

double SortedQuantile(absl::Span<const double> sorted, double q) {
  const double at = q * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(at));
  if (below + 1 >= sorted.size()) return sorted.back();
  const double fraction = at - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[below + 1] - sorted[below]);
}

Summary Summarize(absl::Span<const double> values) {
  Summary s;
  if (values.empty()) return s;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  s.count = sorted.size();
  for (double v : sorted) s.total += v;
  s.mean = s.total / static_cast<double>(s.count);
  s.p50 = SortedQuantile(sorted, 0.50);
  s.p95 = SortedQuantile(sorted, 0.95);
  s.p99 = SortedQuantile(sorted, 0.99);
  return s;
}

double MannWhitneyP(absl::Span<const double> a, absl::Span<const double> b) {
  const size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return 1.0;
  // Ranks of the pooled sample (mid-ranks for ties), and the tie term sum(t^3 - t).
  std::vector<std::pair<double, bool>> pooled;  // (value, from a)
  pooled.reserve(n1 + n2);
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  double rank_sum_a = 0, ties = 0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second) rank_sum_a += mid_rank;
    }
    ties += t * t * t - t;
    i = j;
  }
  const double d1 = static_cast<double>(n1), d2 = static_cast<double>(n2);
  const double u = rank_sum_a - d1 * (d1 + 1) / 2;
  const double mean = d1 * d2 / 2;
  if (ties == 0 && n1 <= kExactLimit && n2 <= kExactLimit) {
    const double lower = std::min(u, d1 * d2 - u);  // the tail U is in, mirrored
    return Clamp01(2 * ExactLowerTail(n1, n2, lower));
  }
  const double n = d1 + d2;
  const double variance = d1 * d2 / 12 * ((n + 1) - ties / (n * (n - 1)));
  if (variance <= 0) return 1.0;  // every value tied
  const double z = std::max(0.0, std::fabs(u - mean) - 0.5) / std::sqrt(variance);
  return Clamp01(std::erfc(z / std::sqrt(2.0)));
}

namespace {

// The continued fraction of the regularized incomplete beta function I_x(a, b) (modified
// Lentz's method), for x < (a + 1) / (a + b + 2).
double BetaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const double m2 = 2.0 * m;
    // Even step.
    double term = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + term * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + term / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    // Odd step.
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + term * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + term / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEpsilon) break;
  }
  return h;
}

// The regularized incomplete beta function I_x(a, b), 0 <= x <= 1.
double IncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * BetaFraction(a, b, x) / a;
  return 1 - front * BetaFraction(b, a, 1 - x) / b;
}

}  // namespace

double StudentTwoSidedP(double t, double df) {
  if (!std::isfinite(t)) return 0;
  return Clamp01(IncompleteBeta(df / 2, 0.5, df / (df + t * t)));
}

double WelchLogP(absl::Span<const double> a, absl::Span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return 1;
  auto moments = [](absl::Span<const double> v, double* mean, double* variance) {
    double sum = 0;
    for (double x : v) sum += std::log(x);
    *mean = sum / static_cast<double>(v.size());
    double squares = 0;
    for (double x : v) squares += (std::log(x) - *mean) * (std::log(x) - *mean);
    *variance = squares / static_cast<double>(v.size() - 1);
  };
  for (absl::Span<const double> v : {a, b}) {
    for (double x : v) {
      if (!(x > 0) || !std::isfinite(x)) return 1;
    }
  }
  double ma, va, mb, vb;
  moments(a, &ma, &va);
  moments(b, &mb, &vb);
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double se2 = va / na + vb / nb;
  if (se2 <= 0) return ma == mb ? 1 : 0;
  const double t = (mb - ma) / std::sqrt(se2);
  const double df =
      se2 * se2 / ((va / na) * (va / na) / (na - 1) + (vb / nb) * (vb / nb) / (nb - 1));
  return StudentTwoSidedP(t, df);
}

std::vector<double> BenjaminiHochberg(absl::Span<const double> p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  for (size_t i = 0; i < m; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> q(m);
  double running = 1.0;  // min over the larger ranks, so that q is monotone
  for (size_t r = m; r-- > 0;) {
    const double adjusted = p[order[r]] * static_cast<double>(m) / static_cast<double>(r + 1);
    running = std::min(running, adjusted);
    q[order[r]] = Clamp01(running);
  }
  return q;
}

double StatisticOf(Statistic statistic, std::vector<double>& values) {
  if (statistic == Statistic::kMean) {
    double sum = 0;
    for (double v : values) sum += v;
    return sum / static_cast<double>(values.size());
  }
  // The median as SortedQuantile(0.5) takes it: the mean of the two middle values.
  const size_t n = values.size();
  const size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

namespace {

// One bootstrap resample of a side, its statistic; nullopt-like NaN for an empty side.
double ResampleStatistic(const std::vector<std::vector<double>>& runs, size_t total,
                         Statistic statistic, const BootstrapOptions& options, std::mt19937_64& rng,
                         std::vector<double>& scratch) {
  scratch.clear();
  const double scale =
      total > options.max_draws ? static_cast<double>(options.max_draws) / total : 1.0;
  std::uniform_int_distribution<size_t> pick_run(0, runs.size() - 1);
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::vector<double>& run = runs.size() == 1 ? runs[0] : runs[pick_run(rng)];
    if (run.empty()) continue;
    const size_t draws = std::max<size_t>(
        1, static_cast<size_t>(std::ceil(scale * static_cast<double>(run.size()))));
    std::uniform_int_distribution<size_t> pick(0, run.size() - 1);
    for (size_t i = 0; i < draws; ++i) scratch.push_back(run[pick(rng)]);
  }
  if (scratch.empty()) return std::numeric_limits<double>::quiet_NaN();
  return StatisticOf(statistic, scratch);
}

}  // namespace

Interval BootstrapRelativeChange(const std::vector<std::vector<double>>& base,
                                 const std::vector<std::vector<double>>& now, Statistic statistic,
                                 const BootstrapOptions& options) {
  Interval interval;
  size_t base_total = 0, now_total = 0;
  for (const auto& run : base) base_total += run.size();
  for (const auto& run : now) now_total += run.size();
  // A side of one value has no spread to draw from: no interval.
  if (base_total < 2 || now_total < 2 || options.resamples <= 0) return interval;
  std::mt19937_64 rng(options.seed);
  std::vector<double> scratch, changes;
  changes.reserve(options.resamples);
  for (int i = 0; i < options.resamples; ++i) {
    const double b = ResampleStatistic(base, base_total, statistic, options, rng, scratch);
    const double n = ResampleStatistic(now, now_total, statistic, options, rng, scratch);
    if (std::isnan(b) || std::isnan(n) || b == 0) continue;
    changes.push_back(n / b - 1);
  }
  // Fewer than 90 % of the resamples usable: no interval.
  if (changes.size() * 10 < static_cast<size_t>(options.resamples) * 9) return interval;
  std::sort(changes.begin(), changes.end());
  const double tail = (1 - options.confidence) / 2;
  interval.low = SortedQuantile(changes, tail);
  interval.high = SortedQuantile(changes, 1 - tail);
  interval.valid = true;
  return interval;
}

}  // namespace tracewire::tools
