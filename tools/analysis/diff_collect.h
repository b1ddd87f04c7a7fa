// RunCollector: reads one run's events (reader order) into the values of the keys
// `tracewire diff` compares (diff_keys.h), through the track model: a region, task or
// child's duration is from its begin to its own end event (slices the input left open
// count nothing), a command's from its process's first event to its last.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_DIFF_COLLECT_H_
#define TRACEWIRE_TOOLS_ANALYSIS_DIFF_COLLECT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "reader/event.h"
#include "reader/track_model.h"
#include "tools/analysis/diff_keys.h"

namespace tracewire::tools {

class RunCollector : public reader::TrackListener {
 public:
  // Counts one event.
  void Add(const reader::Event& e);
  // Ends what is open and returns the run's values (the collector is spent).
  RunValues Finish();

  // TrackListener.
  void OnSliceBegin(const reader::Slice& slice, const reader::Event& e);
  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end);
  void OnEvent(const reader::Event& e, const reader::EventTracks& at);
  void OnSample(const reader::Event& e, const reader::SampleContext& at);

 private:
  std::vector<double>& Values(DiffKind kind, std::string name) {
    return run_.values[DiffKey{kind, std::move(name)}];
  }
  // The command name of process `process` ("" if unknown).
  const std::string& CommandOf(uint32_t process);

  reader::TrackModel model_;
  RunValues run_;
  std::vector<std::string> slot_names_;  // the open slices' names, by slot
  std::vector<std::string> cmd_names_;   // by process: cmd_name
  std::vector<std::string> argv0_;       // by process: basename of argv[0]
  absl::flat_hash_map<std::string, uint64_t> self_weight_, total_weight_;
  uint64_t sample_weight_ = 0;
  std::vector<std::string> scratch_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_DIFF_COLLECT_H_
