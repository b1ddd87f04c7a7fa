#include "tools/analysis/diff_gate.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace tracewire::tools {
namespace {

constexpr absl::string_view kStats[] = {"count", "total", "mean", "p50", "p95", "p99"};

double StatOf(const Summary& s, int stat) {
  const double values[] = {static_cast<double>(s.count), s.total, s.mean, s.p50, s.p95, s.p99};
  return values[stat];
}

absl::Status Bad(absl::string_view condition, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("--fail-if: '", condition, "': ", why));
}

// Error events per run of a side ("*" key: all errors; its per-run totals' mean).
double ErrorsPerRun(const KeyDiff& d, bool now) {
  const Summary& s = now ? d.now : d.base;
  return s.count == 0 ? 0 : s.mean;
}

}  // namespace

absl::StatusOr<std::vector<GateCondition>> ParseFailIf(absl::string_view expr) {
  std::vector<GateCondition> conditions;
  for (absl::string_view text : absl::StrSplit(expr, ',', absl::SkipWhitespace())) {
    text = absl::StripAsciiWhitespace(text);
    GateCondition c;
    c.text = std::string(text);
    const size_t op = text.find_first_of("<>");
    if (op == absl::string_view::npos) return Bad(text, "expects STAT>CHANGE or STAT<CHANGE");
    c.greater = text[op] == '>';
    const absl::string_view stat = absl::StripAsciiWhitespace(text.substr(0, op));
    absl::string_view value = absl::StripAsciiWhitespace(text.substr(op + 1));
    if (stat == "errors") {
      c.stat = -1;
      if (!c.greater) return Bad(text, "errors takes '>' only");
      if (!absl::SimpleAtod(value, &c.threshold) || c.threshold < 0) {
        return Bad(text, "errors expects a number of errors per run (errors>0)");
      }
      conditions.push_back(c);
      continue;
    }
    c.stat = -2;
    for (size_t i = 0; i < std::size(kStats); ++i) {
      if (kStats[i] == stat) c.stat = static_cast<int>(i);
    }
    if (c.stat == -2) {
      return Bad(text, "unknown statistic (count, total, mean, p50, p95, p99, errors)");
    }
    if (!absl::ConsumeSuffix(&value, "%")) return Bad(text, "expects a percentage (p95>+10%)");
    double percent = 0;
    if (value.empty() || (value[0] != '+' && value[0] != '-') ||
        !absl::SimpleAtod(value, &percent) || !std::isfinite(percent)) {
      return Bad(text, "expects a signed percentage (+10% or -10%)");
    }
    c.threshold = percent / 100;
    conditions.push_back(c);
  }
  if (conditions.empty()) return absl::InvalidArgumentError("--fail-if: no condition");
  return conditions;
}

std::vector<std::string> GateFailures(const std::vector<KeyDiff>& diffs,
                                      const std::vector<GateCondition>& conditions) {
  std::vector<std::string> failures;
  for (const GateCondition& c : conditions) {
    for (const KeyDiff& d : diffs) {
      if (c.stat == -1) {
        if (d.kind != DiffKind::kError || d.name != "*") continue;
        const double more = ErrorsPerRun(d, true) - ErrorsPerRun(d, false);
        if (more > c.threshold) {
          failures.push_back(
              absl::StrFormat("%s: %g more error events per run in new", c.text, more));
        }
        continue;
      }
      if (!d.significant()) continue;
      const double b = StatOf(d.base, c.stat), n = StatOf(d.now, c.stat);
      if (b == 0) continue;
      const double change = n / b - 1;
      if (c.greater ? change > c.threshold : change < c.threshold) {
        failures.push_back(absl::StrFormat("%s: %s %s %s %+.1f%%", c.text, KindInfo(d.kind).label,
                                           d.name, kStats[c.stat], 100 * change));
      }
    }
  }
  return failures;
}

}  // namespace tracewire::tools
