// PerfettoChecker: reads a Perfetto protobuf trace with the repository's schema
// (reader/targets/perfetto/perfetto_trace.proto) and checks the rules Perfetto's format
// documents for track events, collecting what it holds for comparison with other exports.
//
// Rules checked (each broken one is a problem, naming the packet index):
//   * the bytes parse as a Trace, and every packet names its sequence (id > 0);
//   * the first packet of each sequence clears the incremental state
//     (SEQ_INCREMENTAL_STATE_CLEARED); every other packet that uses interned data, the
//     sequence's defaults or its incremental clock says SEQ_NEEDS_INCREMENTAL_STATE;
//   * every interned id (event names, categories, debug annotation names) is defined on its
//     sequence, in the same packet or an earlier one, before it is used; an iid is never
//     defined again with another value;
//   * times: a packet's clock is its timestamp_clock_id or the sequence's default; a
//     sequence-scoped clock (64..127) must be defined by a clock snapshot on the sequence,
//     and an incremental one never goes back (a delta above 2^63 would be a negative one);
//     other clocks must be REALTIME (the primary clock the snapshots declare);
//   * every track an event names (its track_uuid or the sequence's default) is described by
//     a TrackDescriptor earlier in the file; a thread or counter track's parent is a
//     described track; counter values only on counter tracks, slices never there;
//   * per track, in time order (ties in file order), every SLICE_END ends an open
//     SLICE_BEGIN, and no slice is left open;
//   * CPU samples (PerfSample): the callstack iid is defined on the sequence before use, as
//     are the frames a callstack names, the function names and mapping a frame names (a
//     frame with a mapping has a rel_pc) and a mapping's path components; pid and tid
//     are those of a described thread track;
//   * every flow id is started (its first event with it in flow_ids), may have steps (later
//     events with it in flow_ids), and is terminated once (terminating_flow_ids), not before
//     its start or any of its steps.
#ifndef TRACEWIRE_TESTS_PERFETTO_PERFETTO_CHECKER_H_
#define TRACEWIRE_TESTS_PERFETTO_PERFETTO_CHECKER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tracewire::testing {

// A slice as the trace shows it: track "<pid>/<thread or track name>", times in ns.
struct CheckedSlice {
  std::string track;
  std::string name;
  std::string category;
  int64_t ts = 0;
  int64_t dur = 0;
  std::map<std::string, std::string> args;  // debug annotations, values as text
  uint64_t track_uuid = 0;                  // the track's (tracks may share a name)
  bool operator<(const CheckedSlice& o) const;
};

// An instant (TYPE_INSTANT).
struct CheckedInstant {
  std::string track;
  std::string name;
  std::string category;
  int64_t ts = 0;
  std::map<std::string, std::string> args;
};

// A counter value.
struct CheckedCounter {
  std::string track;  // "<pid>/<counter track name>"
  int64_t ts = 0;
  double value = 0;
};

// What the checker found.
struct CheckedTrace {
  std::vector<std::string> problems;  // broken rules; empty for a valid trace
  size_t packets = 0;
  size_t sequences = 0;
  size_t track_events = 0;
  size_t interned_strings = 0;
  // pid -> the process's name as the trace processor shows it: its last ProcessTree
  // entry's argv[0], else its descriptor's process_name.
  std::map<int32_t, std::string> process_names;
  std::map<int32_t, std::string> cmdlines;  // pid -> its last ProcessTree cmdline, joined
  size_t compressed_chunks = 0;             // compressed_packets packets
  std::vector<std::string> thread_tracks;   // "<pid>/<thread_name>"
  std::vector<CheckedSlice> slices;         // sorted
  std::vector<CheckedInstant> instants;
  std::vector<CheckedCounter> counters;
  size_t flows = 0;  // flows with both ends
  std::map<uint64_t, size_t> flow_events;
  std::map<std::string, size_t> samples_by_thread;  // "<pid>/<thread name>" -> CPU samples
  std::map<std::string, size_t> sample_stacks;  // "f1;f2;..." (outermost first) -> samples  // flow
                                                // id -> its events (start, steps, end)
};

// Checks the serialized Trace `bytes` (see above).
CheckedTrace CheckPerfettoTrace(absl::string_view bytes);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_PERFETTO_PERFETTO_CHECKER_H_
