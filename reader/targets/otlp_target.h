// OTLP/JSON traces from reader events of one process or of a whole process tree, in the
// OTLP file format the OpenTelemetry Collector's otlpjsonfile receiver reads: JSON lines,
// each line one ExportTraceServiceRequest ({"resourceSpans":[{"resource":…,
// "scopeSpans":[{"scope":…,"spans":[…]}]}]}).
//
// The spans are those git-ecosystem/trace2receiver builds at its most detailed level
// (shared/notes/git-trace2-output.md §7), with its names and attribute names:
//   * one trace per process tree: trace id from the sid's first component; one process
//     span per process (kind SERVER, name "<exe>:<verb>#<mode>"), whose id and parent id
//     (the parent process's span) come from the sid chain (otlp_ids.h);
//   * thread spans for non-main threads (parent: the process span), region spans
//     ("region(<cat>,<label>)", parent: the enclosing region of the same thread, else the
//     thread span, else the process span), child spans ("child(class:…)", …) and exec
//     spans ("exec(<name>)"), parent: the process span; all of kind INTERNAL with
//     deterministic ids derived from the process span id;
//   * attributes as trace2receiver names them (trace2.span.type, trace2.cmd.name,
//     trace2.cmd.hierarchy, trace2.cmd.exit_code, trace2.region.nesting, trace2.child.pid,
//     …), every value a string, JSON-valued ones (argv, data, timers, …) as JSON text;
//   * ids in lowercase hex, times as decimal strings of Unix nanoseconds; a span's times
//     lie within its parent's (a span starts no earlier than its parent, and a parent
//     ends no earlier than its children).
//
// A process's line is written when the process ends (atexit or signal), or on Finish()
// for processes still open, whose open spans end at the process's last event (exit code
// -1, child pid -1). To bound memory, a process that accumulates 10000 completed region,
// child or exec spans writes them early, as a line of their own.
#ifndef TRACEWIRE_READER_TARGETS_OTLP_TARGET_H_
#define TRACEWIRE_READER_TARGETS_OTLP_TARGET_H_

#include <memory>

#include "reader/targets/formatter.h"

namespace tracewire::targets {

// The OTLP/JSON formatter ("otlp"). It reads no option.
std::unique_ptr<Formatter> MakeOtlpFormatter(const FormatterOptions& options);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_OTLP_TARGET_H_
