// CompareSides: every key of two sides (diff_keys.h) compared — each side's summary, the
// relative change of the kind's statistic with a bootstrap confidence interval, the
// Mann–Whitney U test over the instances and Welch's t-test over the logarithms of the
// per-run totals (both sides several runs) or of the statistics of time-ordered blocks of
// the instances (a side of one run), the Benjamini–Hochberg q-value over all keys tested,
// and the verdict (which also needs a change of at least CompareOptions::min_change). docs/cli.md
// (diff) states the rules for users.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_DIFF_COMPARE_H_
#define TRACEWIRE_TOOLS_ANALYSIS_DIFF_COMPARE_H_

#include <string>
#include <vector>

#include "tools/analysis/diff_keys.h"
#include "tools/analysis/diff_stats.h"

namespace tracewire::tools {

// What a comparison concluded for a key.
enum class DiffVerdict {
  kSlower,     // significantly larger in NEW
  kFaster,     // significantly smaller in NEW
  kUnchanged,  // no significant change (the change is within the noise)
  kNew,        // only in NEW
  kVanished,   // only in BASE
};

// "slower", "faster", "same", "new", "gone".
const char* VerdictName(DiffVerdict verdict);

// One key compared.
struct KeyDiff {
  DiffKind kind = DiffKind::kRegion;
  std::string name;
  Summary base, now;            // over every instance of the side's runs
  Summary base_runs, now_runs;  // over the side's per-run totals
  double change = 0;            // statistic(NEW) / statistic(BASE) - 1 (NaN if BASE's is 0)
  Interval interval;            // its confidence interval
  double p = 1;                 // Mann–Whitney over the instances
  // Welch's t over the logs of the per-run totals (runs_tested) or of the blocks'
  // statistics (blocks_tested); 1 if not tested.
  double p_runs = 1;
  bool runs_tested = false;    // both sides hold several runs
  bool blocks_tested = false;  // a side holds one run: its time-ordered blocks were tested
  double q = 1;  // Benjamini–Hochberg over every key's p (max(p, p_runs) if either tested)
  DiffVerdict verdict = DiffVerdict::kUnchanged;

  bool significant() const {
    return verdict == DiffVerdict::kSlower || verdict == DiffVerdict::kFaster;
  }
};

// Options of a comparison.
struct CompareOptions {
  double alpha = 0.05;       // false discovery rate, and level of the per-run test
  double confidence = 0.95;  // of the intervals
  int resamples = 500;       // bootstrap resamples per key
  double min_change = 0.10;  // a smaller |change| is never significant (0.1 = 10 %)
  int blocks = 5;            // time-ordered blocks a one-run side is cut into
};

// Compares every key of either side; the result is sorted by what matters: significant
// changes first (largest change first), then new and vanished keys, then the rest (the
// smallest p first).
std::vector<KeyDiff> CompareSides(const DiffSide& base, const DiffSide& now,
                                  const CompareOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_DIFF_COMPARE_H_
