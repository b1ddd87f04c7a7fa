// TaskStats: the tasks and gauges of a trace for `tracewire stats`: tasks by name (count,
// total, p50/p95/max duration, threads visited) and gauges (samples, min, max, last).
//
// Like TraceStats it can hold a partial run of events read on its own: the adopts and
// ends of tasks begun before the run are then kept as operations, which Merge() replays
// on the tasks still open in the statistics of everything before the run; the results
// equal those of adding the events one by one.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_TASK_STATS_H_
#define TRACEWIRE_TOOLS_ANALYSIS_TASK_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "reader/event.h"

namespace tracewire::tools {

// The finished tasks of one name ("category/name").
struct TaskTotals {
  uint64_t count = 0;
  std::vector<int64_t> durations_ns;  // one per finished task, in end order
  uint64_t threads_sum = 0;           // threads each task was adopted on, summed
  uint64_t threads_max = 0;
};

// The samples of one gauge ("category/name").
struct GaugeTotals {
  uint64_t samples = 0;
  int64_t min = 0;
  int64_t max = 0;
  int64_t last = 0;  // the latest sample in reader order
  std::string unit;
};

class TaskStats {
 public:
  // `partial`: the statistics of a run of events that may follow others (see above).
  explicit TaskStats(bool partial = false) : partial_(partial) {}

  // Counts one event (in reader order).
  void Add(const reader::Event& e);
  // Adds the statistics of the partial `run`, which follows every event added so far.
  void Merge(const TaskStats& run);

  const std::map<std::string, TaskTotals>& tasks() const { return tasks_; }
  const std::map<std::string, GaugeTotals>& gauges() const { return gauges_; }
  // Tasks begun and not (yet) ended.
  size_t open_tasks() const { return open_.size(); }

  // The "tasks by name" and "gauges" sections of `tracewire stats` (nothing when the trace
  // has neither), the `top` task names with the most total time first.
  std::string Render(size_t top) const;

  // Memory held, roughly.
  size_t bytes() const;

 private:
  struct OpenTask {
    std::string name;
    absl::Time begin;
    std::vector<uint64_t> threads;  // thread numbers it was adopted on, each once
  };
  // An adopt or end of a task not begun in a partial run.
  struct TaskOp {
    std::string sid;
    uint64_t task = 0;
    bool end = false;
    uint64_t thread = 0;
    absl::Time time;
  };
  using Key = std::pair<std::string, uint64_t>;  // sid, task ID

  // Applies an adopt or end to the open task `key`; false if it is not open.
  bool Apply(const Key& key, bool end, uint64_t thread, absl::Time time);

  bool partial_;
  absl::flat_hash_map<Key, OpenTask> open_;
  std::vector<TaskOp> ops_;
  std::map<std::string, TaskTotals> tasks_;
  std::map<std::string, GaugeTotals> gauges_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_TASK_STATS_H_
