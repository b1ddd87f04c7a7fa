#include "tools/analysis/diff_keys.h"

namespace tracewire::tools {
namespace {

constexpr DiffKindInfo kKinds[] = {
    {DiffKind::kRegion, "regions", "region", Statistic::kMedian, false, true},
    {DiffKind::kTask, "tasks", "task", Statistic::kMedian, false, true},
    {DiffKind::kCommand, "commands", "command", Statistic::kMedian, false, true},
    {DiffKind::kChild, "children", "child", Statistic::kMedian, false, true},
    {DiffKind::kTimer, "timers", "timer", Statistic::kMean, true, true},
    {DiffKind::kCounter, "counters", "counter", Statistic::kMean, true, false},
    {DiffKind::kGaugeMean, "gauges", "gauge", Statistic::kMean, false, false},
    {DiffKind::kGaugeLast, "gauges", "gauge-last", Statistic::kMean, false, false},
    {DiffKind::kFunctionSelf, "functions", "function-self", Statistic::kMean, true, false},
    {DiffKind::kFunctionTotal, "functions", "function-total", Statistic::kMean, true, false},
    {DiffKind::kError, "errors", "error", Statistic::kMean, true, false},
};

}  // namespace

absl::Span<const DiffKindInfo> DiffKinds() { return kKinds; }

const DiffKindInfo& KindInfo(DiffKind kind) { return kKinds[static_cast<size_t>(kind)]; }

bool IsDiffGroup(absl::string_view group) {
  for (const DiffKindInfo& info : kKinds) {
    if (info.group == group) return true;
  }
  return false;
}

}  // namespace tracewire::tools
