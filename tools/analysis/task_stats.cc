#include "tools/analysis/task_stats.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::tools {

using reader::Event;
using reader::EventKind;

namespace {

// The nearest-rank percentile `p` (0 < p <= 100) of sorted `values`.
int64_t Percentile(const std::vector<int64_t>& sorted, int p) {
  if (sorted.empty()) return 0;
  size_t rank = (sorted.size() * static_cast<size_t>(p) + 99) / 100;
  return sorted[std::max<size_t>(rank, 1) - 1];
}

}  // namespace

bool TaskStats::Apply(const Key& key, bool end, uint64_t thread, absl::Time time) {
  auto it = open_.find(key);
  if (it == open_.end()) return false;
  OpenTask& task = it->second;
  if (!end) {
    if (std::find(task.threads.begin(), task.threads.end(), thread) == task.threads.end()) {
      task.threads.push_back(thread);
    }
    return true;
  }
  TaskTotals& totals = tasks_[task.name];
  ++totals.count;
  totals.durations_ns.push_back(absl::ToInt64Nanoseconds(time - task.begin));
  totals.threads_sum += task.threads.size();
  totals.threads_max = std::max<uint64_t>(totals.threads_max, task.threads.size());
  open_.erase(it);
  return true;
}

void TaskStats::Add(const Event& e) {
  switch (e.kind) {
    case EventKind::kTaskBegin: {
      OpenTask& task = open_[Key(std::string(e.sid), e.task_id)];
      task.name = absl::StrCat(e.category, "/", e.label);
      task.begin = e.time;
      task.threads.clear();
      return;
    }
    case EventKind::kTaskAdopt:
    case EventKind::kTaskEnd: {
      const bool end = e.kind == EventKind::kTaskEnd;
      Key key(std::string(e.sid), e.task_id);
      if (!Apply(key, end, e.thread_id, e.time) && partial_) {
        ops_.push_back(TaskOp{std::move(key.first), e.task_id, end, e.thread_id, e.time});
      }
      return;
    }
    case EventKind::kGauge: {
      GaugeTotals& gauge = gauges_[absl::StrCat(e.category, "/", e.label)];
      if (gauge.samples == 0) {
        gauge.min = gauge.max = e.value_int;
        if (e.unit.has_value()) gauge.unit = std::string(*e.unit);
      }
      ++gauge.samples;
      gauge.min = std::min(gauge.min, e.value_int);
      gauge.max = std::max(gauge.max, e.value_int);
      gauge.last = e.value_int;
      return;
    }
    default:
      return;
  }
}

void TaskStats::Merge(const TaskStats& run) {
  // The run's adopts and ends of tasks begun before it, then its own results.
  for (const TaskOp& op : run.ops_) {
    if (!Apply(Key(op.sid, op.task), op.end, op.thread, op.time) && partial_) {
      ops_.push_back(op);
    }
  }
  for (const auto& [name, t] : run.tasks_) {
    TaskTotals& totals = tasks_[name];
    totals.count += t.count;
    totals.durations_ns.insert(totals.durations_ns.end(), t.durations_ns.begin(),
                               t.durations_ns.end());
    totals.threads_sum += t.threads_sum;
    totals.threads_max = std::max(totals.threads_max, t.threads_max);
  }
  for (const auto& [name, g] : run.gauges_) {
    GaugeTotals& gauge = gauges_[name];
    if (gauge.samples == 0) {
      gauge = g;
      continue;
    }
    gauge.samples += g.samples;
    gauge.min = std::min(gauge.min, g.min);
    gauge.max = std::max(gauge.max, g.max);
    gauge.last = g.last;
  }
  for (const auto& [key, task] : run.open_) open_[key] = task;
}

size_t TaskStats::bytes() const {
  size_t total = sizeof(*this) + 96 * (open_.size() + ops_.size() + gauges_.size());
  for (const auto& [name, t] : tasks_) total += 64 + 8 * t.durations_ns.size();
  return total;
}

std::string TaskStats::Render(size_t top) const {
  std::string out;
  if (!tasks_.empty() || !open_.empty()) {
    std::vector<std::pair<std::string, std::vector<int64_t>>> sorted;
    for (const auto& [name, t] : tasks_) {
      std::vector<int64_t> durations = t.durations_ns;
      std::sort(durations.begin(), durations.end());
      sorted.emplace_back(name, std::move(durations));
    }
    auto total = [](const std::vector<int64_t>& d) {
      int64_t sum = 0;
      for (int64_t ns : d) sum += ns;
      return sum;
    };
    std::stable_sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
      return total(a.second) > total(b.second);
    });
    if (sorted.size() > top) sorted.resize(top);
    absl::StrAppendFormat(&out, "\ntasks by name (%d still open):\n", open_.size());
    if (sorted.empty()) out += "  (no task ended)\n";
    if (!sorted.empty()) {
      absl::StrAppendFormat(&out, "  %8s %12s %12s %12s %12s %8s %8s  %s\n", "count", "total_s",
                            "p50_s", "p95_s", "max_s", "threads", "max_thr", "category/name");
    }
    for (const auto& [name, durations] : sorted) {
      const TaskTotals& t = tasks_.at(name);
      absl::StrAppendFormat(&out, "  %8d %12.6f %12.6f %12.6f %12.6f %8.2f %8d  %s\n", t.count,
                            total(durations) / 1e9, Percentile(durations, 50) / 1e9,
                            Percentile(durations, 95) / 1e9, durations.back() / 1e9,
                            static_cast<double>(t.threads_sum) / static_cast<double>(t.count),
                            t.threads_max, name);
    }
  }
  if (!gauges_.empty()) {
    out += "\ngauges:\n";
    absl::StrAppendFormat(&out, "  %10s %14s %14s %14s  %s\n", "samples", "min", "max", "last",
                          "category/name (unit)");
    for (const auto& [name, g] : gauges_) {
      absl::StrAppendFormat(&out, "  %10d %14d %14d %14d  %s%s\n", g.samples, g.min, g.max, g.last,
                            name, g.unit.empty() ? "" : absl::StrCat(" (", g.unit, ")"));
    }
  }
  return out;
}

}  // namespace tracewire::tools
