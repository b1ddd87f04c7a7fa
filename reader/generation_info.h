// GenerationInfo: the per-generation metadata the reader exposes next to the events: the
// clock snapshot, the process identity and the experimental batches.
#ifndef TRACEWIRE_READER_GENERATION_INFO_H_
#define TRACEWIRE_READER_GENERATION_INFO_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tracewire::reader {

// The clock_sync of a generation.
struct ClockInfo {
  uint64_t freq = 0;        // trace-clock ticks per second (> 0)
  uint64_t trace_time = 0;  // trace clock at the snapshot
  uint64_t mono_ns = 0;     // CLOCK_MONOTONIC at the snapshot
  absl::Time wall;          // UTC wall clock at the snapshot
  int64_t utc_offset_sec = 0;
};

// An experimental_batch frame: opaque bytes for an experiment.
struct ExperimentalBatch {
  uint64_t experiment = 0;
  uint64_t thread = 0;
  uint64_t base_time = 0;
  absl::string_view data;
};

// Metadata of the generation being decoded. Views are valid while it is current.
struct GenerationInfo {
  uint64_t gen = 0;
  uint64_t file_offset = 0;  // of the first frame
  uint64_t file_bytes = 0;
  bool compressed = false;
  ClockInfo clock;
  absl::string_view sid;
  uint64_t pid = 0;
  uint64_t start_time = 0;  // process start, trace clock
  std::optional<absl::string_view> name;
  std::optional<absl::string_view> hierarchy;
  size_t num_threads = 0;  // threads with an event stream in this generation
  std::vector<ExperimentalBatch> experimental_batches;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_GENERATION_INFO_H_
