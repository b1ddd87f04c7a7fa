// The output of `tracewire diff`: the compared keys (diff_compare.h) filtered (--only,
// --min-count) and written as a table for the terminal, JSON, CSV or Markdown (to paste
// into a code review).
#ifndef TRACEWIRE_TOOLS_ANALYSIS_DIFF_OUTPUT_H_
#define TRACEWIRE_TOOLS_ANALYSIS_DIFF_OUTPUT_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tools/analysis/diff_compare.h"

namespace tracewire::tools {

enum class DiffFormat { kTable, kJson, kCsv, kMarkdown };

// The format named `name` ("table", "json", "csv", "markdown"), or nullopt.
std::optional<DiffFormat> DiffFormatByName(absl::string_view name);

// Which keys are written.
struct DiffFilter {
  std::set<std::string> groups;  // --only: kind groups ("regions", ...); empty: all
  uint64_t min_count = 0;        // --min-count: instances on each side the key is on
  bool Keep(const KeyDiff& d) const;
};

// What the output says about the two sides.
struct DiffHeading {
  std::string base_name, new_name;  // as given on the command line
  size_t base_runs = 0, new_runs = 0;
  uint64_t base_events = 0, new_events = 0;
  double alpha = 0.05;
  double confidence = 0.95;
  double min_change = 0.10;  // the smallest change called significant
};

// The output for `diffs` (already filtered and sorted).
std::string RenderDiff(const std::vector<KeyDiff>& diffs, const DiffHeading& heading,
                       DiffFormat format);

// A value of a key of `kind` for people: durations with a unit ("1.25ms"), others with
// up to 4 significant digits ("12.5", "3.4%" for CPU shares).
std::string FormatValue(DiffKind kind, double value);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_DIFF_OUTPUT_H_
