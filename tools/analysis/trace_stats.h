// TraceStats: statistics of a trace for `tracewire stats`: events by kind and by thread,
// regions by total and self time, generations, bytes per event and the compression ratio,
// and the CPU profile's functions by self and total sample weight, for the whole trace and
// inside each region (a sample counts in every region open on its thread).
//
// A TraceStats can also hold the statistics of a run of events read on its own (a
// "partial", e.g. one generation decoded by a parallel worker): regions left in the run
// but entered before it are then recorded as operations on the thread's region stack,
// which Merge() replays on the statistics of everything before the run. Durations are
// summed in integer nanoseconds, so merging gives exactly what adding the events would.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_TRACE_STATS_H_
#define TRACEWIRE_TOOLS_ANALYSIS_TRACE_STATS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/frame_reader.h"
#include "reader/track_model.h"
#include "tools/analysis/task_stats.h"

namespace tracewire::tools {

// Time spent in the regions of one category/label, over every thread and process.
struct RegionTime {
  std::string name;  // "category/label"
  uint64_t count = 0;
  int64_t total_ns = 0;  // sum of the regions' durations (region_leave t_rel)
  int64_t self_ns = 0;   // total minus the time spent in directly nested regions
};

// Sample weight of one function: where it was the innermost frame (self), and where it was
// anywhere in the stack (total, once per sample).
struct FunctionWeight {
  std::string name;
  uint64_t self = 0;
  uint64_t total = 0;
};

// Accumulates the statistics of one trace, event by event and generation by generation.
class TraceStats {
 public:
  // `partial`: the statistics of a run of events that may follow others (see above).
  explicit TraceStats(bool partial = false) : partial_(partial), task_stats_(partial) {}

  // Counts one event (in reader order).
  void AddEvent(const reader::Event& event);
  // Adds the statistics of the partial `run`, which follows every event added so far.
  void Merge(const TraceStats& run);
  // Counts one generation as framed in the file (for sizes and compression).
  void AddGeneration(const reader::RawGeneration& generation);
  // Notes the flags of a file's headers (format::kFileFlag*).
  void AddHeaderFlags(uint32_t flags) { header_flags_ |= flags; }
  // Sets the input size and the number of processes.
  void SetInput(uint64_t bytes, size_t files, size_t processes) {
    bytes_ = bytes;
    files_ = files;
    processes_ = processes;
  }

  uint64_t events() const { return events_; }
  // Event counts by Trace2 event name, in EventKind order (kinds that occurred).
  std::vector<std::pair<std::string, uint64_t>> EventsByKind() const;
  // Event counts by thread: ((sid, thread name), count) in order of first appearance.
  const std::vector<std::pair<std::pair<std::string, std::string>, uint64_t>>& EventsByThread()
      const {
    return threads_;
  }
  // Regions sorted by total (or self) time, longest first; at most `top`.
  std::vector<RegionTime> TopRegions(size_t top, bool by_self) const;
  // The CPU profile: the summed weight of its samples (all, and of those in region
  // `region`, "category/label"), and the functions by self (or total) weight, most first;
  // at most `top`. Without `region`: the whole trace.
  uint64_t SampleWeight(std::optional<std::string> region = std::nullopt) const;
  std::vector<FunctionWeight> TopFunctions(size_t top, bool by_self,
                                           std::optional<std::string> region = std::nullopt) const;
  uint64_t samples_lost() const { return samples_lost_; }
  // Generations the runtime wrote uncompressed although compression was asked for (its
  // `tracewire` `uncompressed_generations` counters, summed over the processes).
  uint64_t uncompressed_generations() const { return uncompressed_generations_; }

  // Stacks (their frames as FrameText lines, innermost first) with the number of events
  // recorded with each (CPU samples apart), most first; at most `top`.
  std::vector<std::pair<std::vector<std::string>, uint64_t>> TopStacks(size_t top) const;

  // The report `tracewire stats` prints.
  std::string Render(const std::string& name, size_t top) const;
  // Its CPU-profile part: the sample weight, the top functions, and the functions inside
  // each of the top regions.
  void RenderProfile(size_t top, std::string* out) const;

  // The tasks and gauges.
  const TaskStats& task_stats() const { return task_stats_; }

  // Memory held, roughly (for the parallel reader's queue limit).
  size_t bytes() const;

 private:
  // The track model's listener: region times from its regions.
  class RegionListener;

  // An open region's data, by the track model's slot.
  struct OpenRegion {
    size_t region = 0;  // index in regions_
    int64_t child_ns = 0;
  };
  // What a partial run did to the regions open before it, in order.
  struct StackOp {
    enum Kind : uint8_t { kLeave, kChildTime, kUnwind, kSample } kind;
    // kLeave: the region's duration; kChildTime: time to add to its parent; kSample: the
    // index of the sample in samples_ (to count in the regions open before the run).
    int64_t ns = 0;
  };
  // One CPU sample's functions, kept by a partial run for the regions open before it.
  struct SampleFunctions {
    size_t self = 0;               // index in functions_ of the innermost frame
    std::vector<size_t> in_stack;  // indices of the distinct functions of the stack
    uint64_t weight = 0;
  };
  // A function table: weights by index in functions_ (names are shared).
  struct Weights {
    uint64_t samples = 0;  // summed weight of the samples counted
    std::vector<uint64_t> self;
    std::vector<uint64_t> total;
  };

  // A region of thread `thread` left after `ns` (on a replay): the innermost open one,
  // else (partial) the innermost one open before the run.
  void Leave(uint32_t thread, int64_t ns);
  // Counts the open region `slice` as left after `ns`, and its time as its parent's child
  // time (in a partial without a parent: as a kChildTime operation).
  void RegionLeft(const reader::Slice& slice, int64_t ns);
  void AddOp(uint32_t thread, StackOp op);
  OpenRegion& Open(uint32_t slot) {
    if (open_.size() <= slot) open_.resize(slot + 1);
    return open_[slot];
  }
  size_t RegionIndex(absl::string_view name);
  size_t FunctionIndex(const std::string& name);
  // Counts a CPU sample in the whole-trace table and in the tables of `regions` (slots).
  void AddSample(const SampleFunctions& sample, absl::Span<const reader::Slice> regions);
  static void Count(Weights& weights, const SampleFunctions& sample);

  bool partial_;
  uint64_t bytes_ = 0;
  size_t files_ = 0;
  size_t processes_ = 0;
  uint64_t events_ = 0;
  std::vector<uint64_t> by_kind_ =
      std::vector<uint64_t>(static_cast<size_t>(reader::EventKind::kExperimental) + 1);
  std::vector<std::pair<std::pair<std::string, std::string>, uint64_t>> threads_;
  std::map<std::pair<std::string, std::string>, size_t> thread_index_;
  size_t last_thread_ = ~size_t{0};
  std::vector<RegionTime> regions_;
  absl::flat_hash_map<std::string, size_t> region_index_;
  std::string region_name_;  // scratch
  // The regions per thread (in a partial: those entered in the run), with their data by
  // slot, and (partial) per thread the operations on the regions open before the run.
  reader::TrackModel tracks_;
  std::vector<OpenRegion> open_;
  std::vector<std::vector<StackOp>> ops_;  // by the model's thread index
  // Events per stack (by the joined frame texts) and the frames of each stack.
  absl::flat_hash_map<std::string, std::pair<std::vector<std::string>, uint64_t>> stack_counts_;
  // The CPU profile: function names, the whole trace's weights, each region's (by index in
  // regions_), and (partial) the samples to count in regions open before the run.
  std::vector<std::string> functions_;
  absl::flat_hash_map<std::string, size_t> function_index_;
  Weights all_weights_;
  std::vector<Weights> region_weights_;
  std::vector<SampleFunctions> pending_samples_;
  uint64_t samples_lost_ = 0;
  uint32_t header_flags_ = 0;
  std::optional<absl::Time> first_time_;  // of the earliest and latest events
  std::optional<absl::Time> last_time_;
  uint64_t generations_ = 0;
  uint64_t compressed_generations_ = 0;
  uint64_t compressed_file_bytes_ = 0;
  uint64_t compressed_raw_bytes_ = 0;
  uint64_t uncompressed_generations_ = 0;
  TaskStats task_stats_;  // tasks and gauges
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_TRACE_STATS_H_
