// CollectorCounters: the collector's counters as its poll loop updates them, readable from
// any thread (Collector::stats() takes a snapshot while Run() serves). One atomic per field
// of CollectorStats (collector.h), which documents what each counts.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_COUNTERS_H_
#define TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_COUNTERS_H_

#include <atomic>
#include <cstdint>

#include "tools/collector/collector.h"

namespace tracewire::tools {

struct CollectorCounters {
  std::atomic<uint64_t> connections{0};
  std::atomic<uint64_t> active_connections{0};
  std::atomic<uint64_t> generations_written{0};
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint64_t> partial_generations{0};
  std::atomic<uint64_t> invalid_generations{0};
  std::atomic<uint64_t> stream_errors{0};
  std::atomic<uint64_t> write_errors{0};
  std::atomic<uint64_t> git_connections{0};
  std::atomic<uint64_t> git_processes{0};
  std::atomic<uint64_t> git_invalid{0};
  std::atomic<uint64_t> unsafe_files{0};
  std::atomic<uint64_t> idle_timeouts{0};
  std::atomic<uint64_t> memory_limit_drops{0};
  std::atomic<uint64_t> refused_connections{0};
  std::atomic<uint64_t> accept_pauses{0};

  // The current values (each read on its own: not one instant across fields).
  CollectorStats Snapshot() const;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_COUNTERS_H_
