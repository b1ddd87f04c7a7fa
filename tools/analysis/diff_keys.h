// The keys `tracewire diff` compares and what one run of a trace holds for each: the
// durations of every instance of a region, task, command or child process, a timer's or
// counter's total, a gauge's samples and last value, a function's share of the CPU
// samples, an error message's count.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_DIFF_KEYS_H_
#define TRACEWIRE_TOOLS_ANALYSIS_DIFF_KEYS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tools/analysis/diff_stats.h"

namespace tracewire::tools {

// What a key measures.
enum class DiffKind : uint8_t {
  kRegion,         // a region's durations (category/label, per command name), ns
  kTask,           // a task's durations (category/name), ns
  kCommand,        // a process's wall time (by cmd_name, else argv[0]), ns
  kChild,          // a child process's durations (class/argv[0]), ns
  kTimer,          // a timer's total time in the run (category/name), ns
  kCounter,        // a counter's value in the run (category/name)
  kGaugeMean,      // a gauge's mean sample in the run (category/name)
  kGaugeLast,      // a gauge's last sample in the run
  kFunctionSelf,   // a function's self CPU-sample weight, % of the run's samples
  kFunctionTotal,  // a function's total CPU-sample weight, % of the run's samples
  kError,          // error events in the run (by format, else message; "*" all of them)
};

// How a kind is compared and shown (one row per kind, DiffKinds()).
struct DiffKindInfo {
  DiffKind kind;
  absl::string_view group;  // what --only names: "regions", "tasks", ...
  absl::string_view label;  // the kind column of the output
  Statistic statistic;      // what its relative change compares
  bool per_run;             // one value per run (a run without the key counts 0)
  bool duration;            // values are nanoseconds
};

// Every kind, in DiffKind order.
absl::Span<const DiffKindInfo> DiffKinds();
// The row of `kind`.
const DiffKindInfo& KindInfo(DiffKind kind);
// True if `group` names a group of kinds (--only).
bool IsDiffGroup(absl::string_view group);

// A key: its kind and name.
using DiffKey = std::pair<DiffKind, std::string>;

// What one run holds: the values of each key, and what it ran.
struct RunValues {
  std::map<DiffKey, std::vector<double>> values;
  uint64_t events = 0;
  std::set<std::string> commands;  // command names (cmd_name, else argv[0])
};

// One side of a comparison: its runs, and their names (for messages).
struct DiffSide {
  std::vector<RunValues> runs;
  std::vector<std::string> names;
  uint64_t events() const {
    uint64_t n = 0;
    for (const RunValues& run : runs) n += run.events;
    return n;
  }
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_DIFF_KEYS_H_
