#include "tools/analysis/diff_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>

namespace tracewire::tools {
namespace {

// A key's values on one side: per run (a run without the key: empty, or one 0 for the
// kinds counted once per run), all of them, and the per-run totals.
struct SideValues {
  std::vector<std::vector<double>> runs;
  std::vector<double> all;
  std::vector<double> totals;
  bool present = false;
};

SideValues ValuesOf(const DiffSide& side, const DiffKey& key) {
  SideValues v;
  const bool per_run = KindInfo(key.first).per_run;
  for (const RunValues& run : side.runs) {
    auto it = run.values.find(key);
    std::vector<double>& values = v.runs.emplace_back();
    if (it != run.values.end()) {
      values = it->second;
      v.present = true;
    } else if (per_run) {
      values.push_back(0);
    }
    double total = 0;
    for (double x : values) total += x;
    if (!values.empty() || per_run) v.totals.push_back(total);
    v.all.insert(v.all.end(), values.begin(), values.end());
  }
  return v;
}

// A seed from the key, so that each key's bootstrap is reproducible on its own.
uint64_t SeedOf(const DiffKey& key) {
  uint64_t h = 1469598103934665603ull ^ static_cast<uint64_t>(key.first);
  for (unsigned char c : key.second) h = (h ^ c) * 1099511628211ull;
  return h;
}

// The units a side's per-unit test and interval resample: its runs when it holds several;
// with one run, that run's instances cut into `blocks` consecutive blocks (instances are in
// the order they ended), so that drift within the run stands in for the run-to-run noise
// one run cannot show. Empty when one run has under 2 instances a block.
std::vector<std::vector<double>> UnitsOf(const SideValues& v, int blocks) {
  if (v.runs.size() > 1) return v.runs;
  if (v.runs.empty() || blocks < 2) return {};
  const std::vector<double>& run = v.runs[0];
  const size_t n = run.size();
  if (n < 2 * static_cast<size_t>(blocks)) return {};
  std::vector<std::vector<double>> units;
  for (int b = 0; b < blocks; ++b) {
    units.emplace_back(run.begin() + n * b / blocks, run.begin() + n * (b + 1) / blocks);
  }
  return units;
}

// The statistic of each unit that holds values.
std::vector<double> StatisticsOf(Statistic statistic, std::vector<std::vector<double>> units) {
  std::vector<double> out;
  for (std::vector<double>& unit : units) {
    if (!unit.empty()) out.push_back(StatisticOf(statistic, unit));  // a run without the key
  }
  return out;
}

int Rank(const KeyDiff& d) {
  if (d.significant()) return 0;
  if (d.verdict == DiffVerdict::kNew || d.verdict == DiffVerdict::kVanished) return 1;
  return 2;
}

}  // namespace

const char* VerdictName(DiffVerdict verdict) {
  static constexpr const char* kNames[] = {"slower", "faster", "same", "new", "gone"};
  return kNames[static_cast<int>(verdict)];
}

std::vector<KeyDiff> CompareSides(const DiffSide& base, const DiffSide& now,
                                  const CompareOptions& options) {
  std::set<DiffKey> keys;
  for (const DiffSide* side : {&base, &now}) {
    for (const RunValues& run : side->runs) {
      for (const auto& [key, values] : run.values) keys.insert(key);
    }
  }
  std::vector<KeyDiff> diffs;
  std::vector<size_t> tested;  // indices of the keys on both sides
  for (const DiffKey& key : keys) {
    const DiffKindInfo& info = KindInfo(key.first);
    SideValues b = ValuesOf(base, key);
    SideValues n = ValuesOf(now, key);
    KeyDiff& d = diffs.emplace_back();
    d.kind = key.first;
    d.name = key.second;
    d.base = Summarize(b.all);
    d.now = Summarize(n.all);
    d.base_runs = Summarize(b.totals);
    d.now_runs = Summarize(n.totals);
    if (!b.present || !n.present) {
      d.verdict = b.present ? DiffVerdict::kVanished : DiffVerdict::kNew;
      d.change = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const double sb = StatisticOf(info.statistic, b.all);
    const double sn = StatisticOf(info.statistic, n.all);
    d.change = sb != 0 ? sn / sb - 1 : std::numeric_limits<double>::quiet_NaN();
    BootstrapOptions bootstrap;
    bootstrap.resamples = options.resamples;
    bootstrap.confidence = options.confidence;
    bootstrap.seed = SeedOf(key);
    d.p = MannWhitneyP(b.all, n.all);
    const bool several = base.runs.size() > 1 && now.runs.size() > 1;
    const bool by_unit =
        !info.per_run && info.kind != DiffKind::kGaugeLast && info.kind != DiffKind::kGaugeMean;
    if (several) {
      d.interval = BootstrapRelativeChange(b.runs, n.runs, info.statistic, bootstrap);
      d.runs_tested = by_unit;
      if (d.runs_tested) d.p_runs = WelchLogP(b.totals, n.totals);
    } else {
      // A side of one run: its blocks are the units of the interval and of the per-unit
      // test, which compares the units' statistics (blocks differ in size from runs).
      const std::vector<std::vector<double>> ub = UnitsOf(b, options.blocks);
      const std::vector<std::vector<double>> un = UnitsOf(n, options.blocks);
      const bool blocked = by_unit && !ub.empty() && !un.empty();
      d.interval = BootstrapRelativeChange(blocked ? ub : b.runs, blocked ? un : n.runs,
                                           info.statistic, bootstrap);
      d.blocks_tested = blocked;
      if (blocked) {
        d.p_runs = WelchLogP(StatisticsOf(info.statistic, ub), StatisticsOf(info.statistic, un));
      }
    }
    tested.push_back(diffs.size() - 1);
  }
  std::vector<double> p;
  // With runs on both sides a key must pass both tests: its p is the larger of the two
  // (an intersection-union test), and the correction applies to that.
  for (size_t i : tested)
    p.push_back(diffs[i].runs_tested || diffs[i].blocks_tested
                    ? std::max(diffs[i].p, diffs[i].p_runs)
                    : diffs[i].p);
  const std::vector<double> q = BenjaminiHochberg(p);
  for (size_t k = 0; k < tested.size(); ++k) {
    KeyDiff& d = diffs[tested[k]];
    d.q = q[k];
    // Significant: a discovery after the correction, with an interval that excludes no
    // change, and a change of at least the practical minimum.
    const bool discovery = d.q < options.alpha;
    const bool excludes_zero = d.interval.valid && (d.interval.low > 0 || d.interval.high < 0);
    const bool large = std::fabs(d.change) >= options.min_change;
    if (discovery && excludes_zero && large && !std::isnan(d.change)) {
      d.verdict = d.change > 0 ? DiffVerdict::kSlower : DiffVerdict::kFaster;
    }
  }
  std::stable_sort(diffs.begin(), diffs.end(), [](const KeyDiff& x, const KeyDiff& y) {
    const int rx = Rank(x), ry = Rank(y);
    if (rx != ry) return rx < ry;
    if (rx == 0) return std::fabs(x.change) > std::fabs(y.change);
    if (rx == 2) return x.p < y.p;
    return false;
  });
  return diffs;
}

}  // namespace tracewire::tools
