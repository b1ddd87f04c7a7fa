// Chrome Trace Event JSON (the JSON Object Format read by Perfetto, the Chrome DevTools
// Performance panel and speedscope) from reader events of one process or of a whole
// process tree.
//
// Output: {"traceEvents":[ one event object per line ],"stackFrames":{...}}. Events are
// written as soon as they are known; the stackFrames dictionary closes the object in
// Finish().
//
// Mapping:
//   * one pid per process (sid): the pid of the sid's "-P<hex>" part when it is unique in
//     the output, else a free number above 4194304 (Linux's pid limit); M events
//     process_name ("<exe> <command>"), process_labels ("<command>,<sid>"; both written
//     again when the name becomes known), process_sort_index (sid depth), thread_name and
//     thread_sort_index;
//   * one tid per thread (the trace's thread number; main is 0);
//   * regions: complete events ("X", written when the region ends): name = label, cat =
//     category, args msg, repo (and leave_msg when the leave has its own message); regions
//     git unwinds (thread_exit, atexit, timers, ...) end there. A region's stack is its "sf",
//     the leave's stack its "esf" (stackFrames: name = function or "0x<pc>", category =
//     file[:line], parent = caller);
//   * child processes: X events on per-process "children" tracks (tid 1000000000 + lane; a
//     child takes the lowest free lane so that overlapping children still nest), cat
//     "process", args argv, class, hook, cd, use_shell, child_id, pid, code (or ready);
//     a flow ("s" on the child slice, "f" with "bp":"e" on the child process's first event)
//     links the child slice to the child process, matched by parent sid and pid;
//   * CPU samples (TRACEWIRE_CPU_PROFILE): per sampled thread, at the end of the output, a
//     "Profile" event (ph "P", cat disabled-by-default-v8.cpu_profiler, id per thread, ts
//     and args.data.startTime the first sample's time in whole microseconds) and
//     "ProfileChunk" events of at most 10000 samples each: args.data.cpuProfile.nodes (the
//     call tree: id, parent, callFrame functionName, url = source file, lineNumber
//     0-based, scriptId 0, columnNumber -1; node 1 is "(root)"), .samples (leaf node ids)
//     and args.data.timeDeltas (microseconds since the previous sample). Each sample
//     counts once (its weight is not shown); cpu_samples_lost is an instant with the count;
//   * data, data_json, printf: thread-scope instant events ("s":"t") with the value in args;
//     errors: process-scope instants ("s":"p"); timers and counters: C events; every other
//     Trace2 event: a thread-scope instant named after the event (cat "process" for
//     version, start, exit, atexit, signal; "trace2" otherwise);
//   * ts and dur: microseconds with three decimals (nanoseconds). ts counts from a base:
//     the start of the UTC hour of the first event written, minus one hour. Per thread
//     (and per children track) the times of successive events strictly increase: a time
//     that would not (a recalibrated generation) is moved to 1 ns after the previous one.
//     Hostile times never overflow: times are clamped to 2^61 ns (about 73 years) either
//     side of the base, and a first time outside the years 1970-2219 makes the base the
//     Unix epoch.
//
// Slices still open at Finish() end at their process's last time.
#ifndef TRACEWIRE_READER_TARGETS_CHROME_TARGET_H_
#define TRACEWIRE_READER_TARGETS_CHROME_TARGET_H_

#include <cstdint>
#include <memory>
#include <string>

#include "reader/targets/formatter.h"

namespace tracewire::targets {

// The Chrome Trace Event formatter ("chrome"). It reads no option.
std::unique_ptr<Formatter> MakeChromeFormatter(const FormatterOptions& options);

// Appends `ns` nanoseconds as microseconds with three decimals ("-1.500" for -1500), for
// every int64_t value (INT64_MIN included).
void AppendChromeMicros(int64_t ns, std::string* out);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_CHROME_TARGET_H_
