// The CI gate of `tracewire diff --fail-if=EXPR`: conditions on the significant changes
// (and on errors) that make the command fail with its own exit code.
//
// EXPR is one or more conditions separated by ',': STAT OP CHANGE, with STAT one of count,
// total, mean, p50, p95, p99, OP '>' or '<', and CHANGE a signed percentage ("p95>+10%":
// some significantly changed key's p95 grew by more than 10 %; "mean<-20%": some mean
// fell by more than 20 %); or errors>N: NEW has more than N error events per run more than
// BASE (errors are never noise: no test applies).
#ifndef TRACEWIRE_TOOLS_ANALYSIS_DIFF_GATE_H_
#define TRACEWIRE_TOOLS_ANALYSIS_DIFF_GATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/analysis/diff_compare.h"

namespace tracewire::tools {

struct GateCondition {
  std::string text;      // as written
  int stat = 0;          // index into count, total, mean, p50, p95, p99; -1 for errors
  bool greater = true;   // '>' (else '<')
  double threshold = 0;  // a fraction (0.1 for 10 %), or errors per run
};

// Parses EXPR; InvalidArgument with a message for the user.
absl::StatusOr<std::vector<GateCondition>> ParseFailIf(absl::string_view expr);

// One line per condition met ("p95>+10%: region demo: work/parse p95 +23.1%"); empty if
// the gate passes. Looks at every key of `diffs` (filtered as the output is).
std::vector<std::string> GateFailures(const std::vector<KeyDiff>& diffs,
                                      const std::vector<GateCondition>& conditions);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_DIFF_GATE_H_
