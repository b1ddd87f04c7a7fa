// The Perfetto formatter ("perfetto"): a Perfetto protobuf trace (a `Trace` of
// `TracePacket`s, reader/targets/perfetto/perfetto_trace.proto) from reader events of one
// process or a whole process tree, for the Perfetto UI and its trace processor.
//
// Mapping (the same tracks, slices and times as the Chrome formatter, chrome_target.h):
//   * one packet sequence per thread (trusted_packet_sequence_id = the thread's index + 1).
//     Its first packet clears the incremental state (SEQ_INCREMENTAL_STATE_CLEARED,
//     first_packet_on_sequence), sets the sequence's defaults (the thread's track, the
//     sequence's clock) and holds a clock snapshot; every later packet carries
//     SEQ_NEEDS_INCREMENTAL_STATE. Event names, categories and debug annotation names are
//     interned per sequence: a string's iid is defined in the packet that first uses it;
//   * times: nanoseconds of CLOCK_REALTIME (the snapshots make REALTIME the trace's
//     primary clock). A thread's packets are timed on a sequence-scoped incremental clock
//     (id 64: each packet's timestamp is the delta from the sequence's previous one);
//     packets written out of time order (child slices, descriptors, flow ends) carry
//     absolute REALTIME times. Per thread (and per children track) times strictly
//     increase: a time that would not moves to 1 ns after the previous one (as in Chrome);
//   * a process track per process (pid from the sid's "-P<hex>" when unique, else a free
//     number above 4194304; no process_name: the trace processor keeps the first one), and
//     its start event's argv as a ProcessTree entry (pid, ppid, cmdline: the trace
//     processor's process.name is argv[0], the last entry winning); a thread track per thread
//     (parent: its process; tid: the pid for the main thread, a free number from 2^30 for the
//     others; thread_name);
//   * regions: TYPE_SLICE_BEGIN / TYPE_SLICE_END on the thread track (name = label, one
//     category; debug annotations msg, repo, and leave_msg on the end when it differs);
//     regions git unwinds end there, and slices open at the end of the input end at their
//     process's last time;
//   * child processes: slices on a "children" track of the process per lane (a child takes
//     the lowest free lane), category "process", annotations as Chrome's args; written
//     when the child ends (with absolute times). When the child process is in the output
//     too (its first event came before the child's end), the child slice starts a flow
//     (flow_ids) that ends (terminating_flow_ids) on a "spawned" instant at the child
//     process's first event, on its thread;
//   * data, data_json, printf and every other Trace2 event: TYPE_INSTANT on the thread track
//     with the Chrome formatter's name, category and args as debug annotations (data_json
//     values as legacy_json_value, argv lists as arrays); errors on the process track;
//   * timers and counters (and th_ variants): counter tracks under the process, one per
//     name and value: "<cat>/<name>" (count), "<cat>/<name> intervals", "... t_total",
//     "... t_min", "... t_max" (nanoseconds, UNIT_TIME_NS).
//   * tasks: slices on the process's lanes of tasks of their name (tracks that all carry
//     the name; a task takes the lowest free lane of its name); the segments of a task on
//     a "<thread name> tasks" track under each thread, joined by one flow per task;
//   * gauges: counter tracks; CPU samples: PerfSample packets with interned stacks, a
//     sample of weight w written w times (at most kMaxSampleWeight).
// `tracewire decode` compresses the packets (packet_compressor.h).
#ifndef TRACEWIRE_READER_TARGETS_PERFETTO_PERFETTO_TARGET_H_
#define TRACEWIRE_READER_TARGETS_PERFETTO_PERFETTO_TARGET_H_

#include <memory>

#include "reader/targets/formatter.h"

namespace tracewire::targets {

// The Perfetto formatter. It reads no option. Output is binary (a serialized `Trace`);
// Finish() writes nothing but ends what is still open.
std::unique_ptr<Formatter> MakePerfettoFormatter(const FormatterOptions& options);

// Perfetto's clock ids used by the formatter.
inline constexpr uint32_t kPerfettoClockRealtime = 1;   // BuiltinClock REALTIME
inline constexpr uint32_t kPerfettoSequenceClock = 64;  // first sequence-scoped clock id

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_PERFETTO_PERFETTO_TARGET_H_
