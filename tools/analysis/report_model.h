// ReportModel: what `tracewire report` shows of a trace, built event by event: the process
// tree, each process's threads with their regions by depth, its child processes, errors and
// exit code, its tasks by name (each task's span and the segments in which threads worked
// for it), its gauges' samples, and the regions' total and self times (TraceStats, as
// `tracewire stats` counts them). Times are nanoseconds since the trace's first event.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_REPORT_MODEL_H_
#define TRACEWIRE_TOOLS_ANALYSIS_REPORT_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/track_model.h"
#include "tools/analysis/trace_stats.h"

namespace tracewire::tools {

// A region as drawn: its times and its "category/label" (an index into ReportModel::names).
// Or, with count > 1, a run of `count` successive regions of one row that are too narrow to
// draw one by one (ReportModel compacts them while it reads, see kCompactedWidth):
// begin_ns is the first one's begin, end_ns the latest end, busy_ns the sum of their
// durations, and `name` is unused.
struct ReportRegion {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;
  uint32_t count = 1;
  int64_t busy_ns = 0;  // with count > 1
};

// The timeline width (pixels) a thread's regions are compacted for: runs of regions that
// the report draws as one grey bar at this width or any narrower one are kept as one
// ReportRegion, so that memory grows with the pixels drawn rather than with the regions.
inline constexpr int kCompactedWidth = 1000;

// An instant worth a mark on the timeline (an error).
struct ReportMark {
  int64_t ns = 0;
  std::string text;
};

// The CPU samples of a process or a region, for a flame graph: each distinct stack (frames
// outermost first, named as folded stacks name them) with its summed sample weight.
struct FlameGraph {
  std::map<std::vector<std::string>, uint64_t> stacks;
  uint64_t total = 0;
  // Adds a sample of `weight` whose stack is `frames` (outermost first).
  void Add(const std::vector<std::string>& frames, uint64_t weight) {
    stacks[frames] += weight;
    total += weight;
  }
};

struct ReportThread {
  std::string name;
  // Finished regions by depth (0 = outermost), each row in time order; runs of narrow
  // regions compacted (ReportRegion::count).
  std::vector<std::vector<ReportRegion>> rows;
  // The size at which each row is compacted next.
  std::vector<size_t> compact_at;
  std::vector<ReportMark> errors;
};

// A child process as its parent saw it (child_start to child_exit or child_ready).
struct ReportChild {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  std::string name;  // the child's argv
  int64_t pid = 0;   // 0 until child_exit/child_ready
  std::optional<int64_t> code;
  int process = -1;  // index of the child's own process in the model, if traced
};

// The tasks of one name in a process: a lane of the report.
struct ReportTaskLane {
  // "category/name" of its tasks (an index into ReportModel::names).
  uint32_t name = 0;
  // The lane of the segments of tasks whose task_begin the trace does not hold (begun
  // before it): it has no spans, and its name is "?/tasks begun before the trace".
  bool begun_before_trace = false;
  uint64_t tasks = 0;               // tasks begun
  std::vector<ReportRegion> spans;  // each task's task_begin .. task_end, in end order
  uint64_t segments = 0;            // segments on all threads
  // The segments (task_adopt .. task_release) by thread number, each in end order.
  std::map<uint64_t, std::vector<ReportRegion>> thread_segments;
};

// A gauge of a process: every sample, in trace order.
struct ReportGauge {
  std::string name;  // "category/name"
  std::string unit;  // of its first sample ("" if none)
  struct Sample {
    int64_t ns = 0;
    int64_t value = 0;
  };
  std::vector<Sample> samples;
};

struct ReportProcess {
  std::string sid;
  std::string exe;      // basename of start's argv[0]
  std::string command;  // cmd_name
  std::string argv;     // start's argv, joined by spaces
  uint32_t pid = 0;     // from the sid's -P<hex>, 0 if none
  int parent = -1;      // index of the parent process, -1 for a root (or untraced parent)
  std::vector<int> children;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  std::optional<int64_t> exit_code;          // atexit's (or exit's) code
  std::optional<int64_t> signal;             // the signal that ended it
  std::map<uint64_t, ReportThread> threads;  // by thread number
  std::vector<ReportChild> child_runs;
  std::vector<ReportTaskLane> task_lanes;  // in order of their first task (or segment)
  std::vector<ReportGauge> gauges;         // in order of their first sample
  uint64_t events = 0;
  uint64_t regions = 0;
  std::unique_ptr<TraceStats> stats;  // region times of this process
  FlameGraph flame;                   // its CPU samples

  // "<exe> <command>", or the sid's last component if neither is known.
  std::string DisplayName() const;
};

class ReportModel {
 public:
  // `compact_rows_from`: a thread's row of regions is first compacted when it holds this
  // many (tests make it small, or disable compaction with SIZE_MAX).
  explicit ReportModel(size_t compact_rows_from = 4096);

  // Adds one event (in reader order).
  void Add(const reader::Event& event);
  // Ends the regions and child runs still open at their process's last time and links
  // children to their processes. Call once, after the last Add().
  void Finish();

  const std::vector<std::unique_ptr<ReportProcess>>& processes() const { return processes_; }
  const std::vector<std::string>& names() const { return names_; }
  // Region times over the whole trace.
  const TraceStats& stats() const { return stats_; }
  // The CPU samples taken inside the regions named `name` ("category/label"), over the
  // whole trace; nullptr if none.
  const FlameGraph* RegionFlame(const std::string& name) const {
    auto it = name_ids_.find(name);
    if (it == name_ids_.end()) return nullptr;
    auto flame = region_flames_.find(it->second);
    return flame == region_flames_.end() ? nullptr : &flame->second;
  }
  uint64_t events() const { return events_; }
  // The UTC time of the first event (the zero of every time in the model).
  absl::Time start() const { return start_; }

 private:
  // The track model's listener (report_model.cc).
  class Listener;

  // An open region's data, by the track model's slot.
  struct OpenRegion {
    int64_t begin_ns = 0;
    uint32_t name = 0;
  };

  // An open task's or task segment's data, by the track model's slot.
  struct OpenTask {
    int64_t begin_ns = 0;
    uint32_t lane = 0;  // index into its process's task_lanes
  };

  int64_t RelativeNs(absl::Time t);
  // Merges runs of regions of `row` (of process `p`) that are narrower than half a pixel at
  // kCompactedWidth over the process's time so far, and no more than half a pixel apart.
  // The process's time only grows, so they stay that narrow and that close at the end, and
  // the report draws them in one run either way.
  static void CompactRow(const ReportProcess& p, std::vector<ReportRegion>* row);
  // The lane of tasks named `name` in process `process`, added if new.
  uint32_t TaskLane(uint32_t process, uint32_t name, bool begun_before_trace = false);
  uint32_t NameId(absl::string_view category, absl::string_view label);

  std::vector<std::unique_ptr<ReportProcess>> processes_;  // by the model's process index
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, uint32_t> name_ids_;
  std::string name_key_;
  // Regions, child runs and threads from the track model.
  reader::TrackModel tracks_;
  std::vector<OpenRegion> open_regions_;  // by slot
  std::vector<size_t> open_children_;     // index into child_runs, by slot
  std::vector<ReportThread*> threads_;    // by the model's thread index
  std::vector<uint64_t> thread_ids_;      // thread number, by the model's thread index
  std::vector<OpenTask> open_tasks_;      // open tasks and task segments, by slot
  // The lane of each open task, by (process index, task ID): how a segment finds its name.
  absl::flat_hash_map<std::pair<uint32_t, uint64_t>, uint32_t> task_lane_of_;
  // (process index, name) -> lane index in the process's task_lanes.
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, uint32_t> lane_ids_;
  // Index of each gauge track of the track model in its process's gauges.
  std::vector<uint32_t> gauge_index_;
  size_t compact_rows_from_;
  int64_t now_ns_ = 0;  // time of the event being added
  TraceStats stats_;
  std::map<uint32_t, FlameGraph> region_flames_;  // by region name id
  uint64_t events_ = 0;
  bool have_start_ = false;
  absl::Time start_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_REPORT_MODEL_H_
