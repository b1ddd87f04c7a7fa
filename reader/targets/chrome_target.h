// Chrome Trace Event JSON (the JSON Array Format of chrome://tracing, Perfetto and
// speedscope; shared/reference/trace-event-format.md) from reader events of one process or
// of a whole process tree.
//
// Mapping:
//   * one pid per process (sid): the pid of the sid's "-P<hex>" part when it is unique in
//     the output, else a free number; M events process_name ("<command> (<sid>)"),
//     thread_name and thread_sort_index;
//   * one tid per thread (the trace's thread number; main is 0), whose lifetime is a B/E
//     slice named after the thread (cat "thread"): from its first event (thread_start) to
//     thread_exit, or to atexit/signal for main;
//   * regions: B/E slices (name = label, cat = category, args msg, repo, nesting), closed
//     when git unwinds them (thread_exit, atexit, timers, ...);
//   * child processes: B/E slices on per-process "children" tracks (tid 1000000000 + lane;
//     a child takes the lowest free lane so that overlapping children still nest), cat
//     "child_process", args argv, class, hook, cd, child_id on B and pid, code on E;
//   * data, data_json, printf: instant events, thread scope ("s":"t"); errors: instant
//     events, process scope ("s":"p"); timers and counters: C events; every other Trace2
//     event: a thread-scope instant named after the event (cat "trace2");
//   * ts: microseconds with three decimals (nanoseconds) since a base: the start of the UTC
//     hour of the first event written, minus one hour (so that processes of the tree whose
//     earlier events come later in a file still get positive times). Per thread (and per children
//     track), ts strictly increase in output order: times that would go back (a
//     recalibrated generation) are moved to 1 ns after the previous event.
//
// Output: "[", one event object per line, "]" on Finish(). Slices still open at Finish()
// are closed at their process's last time, so B/E always balance.
#ifndef TRACEWIRE_READER_TARGETS_CHROME_TARGET_H_
#define TRACEWIRE_READER_TARGETS_CHROME_TARGET_H_

#include <memory>

#include "reader/targets/formatter.h"

namespace tracewire::targets {

// The Chrome Trace Event formatter ("chrome"). It reads no option.
std::unique_ptr<Formatter> MakeChromeFormatter(const FormatterOptions& options);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_CHROME_TARGET_H_
