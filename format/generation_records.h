// The plain data of a generation's closing and table records (clock_sync, process_info,
// site), shared by the runtime and GenerationEncoder.
#ifndef TRACEWIRE_FORMAT_GENERATION_RECORDS_H_
#define TRACEWIRE_FORMAT_GENERATION_RECORDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace tracewire::format {

// The clock_sync record of a generation.
struct ClockSync {
  uint64_t freq = 1'000'000'000;  // trace-clock ticks per second
  uint64_t trace_time = 0;        // trace clock read at the same moment as the two below
  uint64_t mono_ns = 0;           // CLOCK_MONOTONIC in ns
  uint64_t wall_sec = 0;          // CLOCK_REALTIME seconds since the Unix epoch (UTC)
  uint64_t wall_nsec = 0;         // CLOCK_REALTIME nanoseconds
  int64_t utc_offset_sec = 0;     // local time minus UTC, in seconds

  friend bool operator==(const ClockSync&, const ClockSync&) = default;
};

// The process_info record of a generation (string fields are interned on Finish).
struct ProcessInfo {
  std::string sid;
  uint64_t pid = 0;
  uint64_t start_time = 0;  // trace-clock time of the process start (t_abs origin)
  std::optional<std::string> name;
  std::optional<std::string> hierarchy;
};

// A call site: where an event was recorded and its static category and label (or key, or
// timer/counter name). `repo` is 0 for none, or the repo id plus one.
struct Site {
  std::optional<std::string> file;
  uint64_t line = 0;
  std::optional<std::string> category;
  std::optional<std::string> label;
  uint64_t repo = 0;

  friend bool operator==(const Site&, const Site&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Site& site) {
    return H::combine(std::move(h), site.file, site.line, site.category, site.label, site.repo);
  }
};

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_GENERATION_RECORDS_H_
