// SyntheticTrace: the generated traces the reader benchmarks and `make_bench_trace` use.
// Every thread repeats "region_enter, data_int, data, data_int, region_leave" with deltas
// of 1..100 ticks (1 ns each), restates itself with thread_status at the start of each
// generation, and closes its regions within the generation. The batch bodies are encoded
// once and reused by every generation (only the batch headers and the per-generation
// tables change), so that a 1 GB file is quick to make.
#ifndef TRACEWIRE_TESTS_BENCH_SYNTHETIC_TRACE_H_
#define TRACEWIRE_TESTS_BENCH_SYNTHETIC_TRACE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "format/event_spec.h"
#include "format/generation_encoder.h"

namespace tracewire::bench {

class SyntheticTrace {
 public:
  // With `bursty`, a thread pauses 20-40 us after about one group in eight, so threads
  // emit in bursts (as Trace2 workers do); without it all threads emit continuously and
  // the merge switches threads at almost every event (the worst case).
  SyntheticTrace(int threads, uint64_t events_per_generation, bool bursty);

  // Timed events per generation (thread_status included).
  uint64_t events_per_generation() const { return events_; }

  // Appends generation `gen` (1, 2, ...) to *out.
  void AppendGeneration(uint64_t gen, std::string* out) const;

  // Writes a trace of at least `min_events` events or `min_bytes` bytes to `path`, one
  // generation at a time. Returns the number of events; aborts on I/O errors.
  uint64_t WriteFile(const std::string& path, uint64_t min_events, uint64_t min_bytes) const;

 private:
  struct Body {
    std::string bytes;
    uint64_t duration = 0;  // sum of the dts
    uint64_t events = 0;
  };

  // Interns the strings and sites, in the same order in every generation, so the IDs the
  // bodies use stay valid.
  void Intern(format::GenerationEncoder& enc) const;
  static void Append(Body* body, format::EventType type, std::initializer_list<uint64_t> args);

  int threads_;
  uint64_t events_per_thread_;
  uint64_t events_ = 0;
  uint64_t span_ = 0;
  std::vector<std::vector<Body>> bodies_;
  // Filled by Intern (the same IDs in every generation).
  mutable std::vector<uint64_t> name_ids_;
  mutable uint64_t value_id_ = 0;
  mutable std::vector<uint64_t> region_sites_;
  mutable uint64_t int_site_ = 0;
  mutable uint64_t str_site_ = 0;
};

}  // namespace tracewire::bench

#endif  // TRACEWIRE_TESTS_BENCH_SYNTHETIC_TRACE_H_
