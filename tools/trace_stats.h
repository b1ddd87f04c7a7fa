// TraceStats: statistics of a trace for `tracewire stats`: events by kind and by thread,
// regions by total and self time, generations, bytes per event and the compression ratio.
#ifndef TRACEWIRE_TOOLS_TRACE_STATS_H_
#define TRACEWIRE_TOOLS_TRACE_STATS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "reader/event.h"
#include "reader/frame_reader.h"

namespace tracewire::tools {

// Time spent in the regions of one category/label, over every thread and process.
struct RegionTime {
  std::string name;  // "category/label"
  uint64_t count = 0;
  double total_sec = 0;  // sum of the regions' durations (region_leave t_rel)
  double self_sec = 0;   // total minus the time spent in directly nested regions
};

// Accumulates the statistics of one trace, event by event and generation by generation.
class TraceStats {
 public:
  // Counts one event (in reader order).
  void AddEvent(const reader::Event& event);
  // Counts one generation as framed in the file (for sizes and compression).
  void AddGeneration(const reader::RawGeneration& generation);
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

  // The report `tracewire stats` prints.
  std::string Render(const std::string& name, size_t top) const;

 private:
  struct OpenRegion {
    size_t region;  // index in regions_
    double child_sec = 0;
  };

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
  // Open regions per (sid, thread id).
  std::map<std::pair<std::string, uint64_t>, std::vector<OpenRegion>> stacks_;
  uint64_t generations_ = 0;
  uint64_t compressed_generations_ = 0;
  uint64_t compressed_file_bytes_ = 0;
  uint64_t compressed_raw_bytes_ = 0;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_TRACE_STATS_H_
