// OTLP/JSON traces from reader events of one process or of a whole process tree, in the
// OTLP file format the OpenTelemetry Collector's otlpjsonfile receiver reads: JSON lines,
// each line one ExportTraceServiceRequest ({"resourceSpans":[{"resource":…,
// "scopeSpans":[{"scope":…,"spans":[…]}]}]}).
//
// The spans are those git-ecosystem/trace2receiver builds at its most detailed level, with
// its names and attribute names:
//   * one trace per process tree: trace id from the sid's first component; one process
//     span per process (kind SERVER, name "<exe>:<verb>#<mode>"), whose id and parent id
//     (the parent process's span) come from the sid chain (otlp_ids.h);
//   * thread spans for non-main threads (parent: the process span), region spans
//     ("region(<cat>,<label>)", parent: the enclosing region of the same thread, else the
//     thread span, else the process span), child spans ("child(class:…)", …) and exec
//     spans ("exec(<name>)"), parent: the process span; all of kind INTERNAL with
//     deterministic ids derived from the process span id;
//   * trace2receiver's attributes (trace2.span.type, trace2.cmd.name, trace2.cmd.hierarchy,
//     trace2.cmd.exit_code, trace2.region.nesting, trace2.child.pid, …), every value a
//     string as it writes them, JSON-valued ones (argv, data, timers, …) as JSON text;
//   * next to them, OpenTelemetry semantic-convention attributes with their types:
//     resource process.pid, process.parent_pid (ints, from the sid's "-P<hex>" parts),
//     process.executable.name, process.command_args (a string array); process span
//     process.pid, process.exit.code (ints, once the process ended); child spans
//     process.pid, process.exit.code, process.command_args of the child; exec spans
//     process.command_args; thread, region, child and exec spans thread.id (the kernel's
//     thread id where the trace records it, else the trace's thread number, main = 0) and
//     thread.name; region, child and exec spans code.filepath and code.lineno of the call that
//     started them, where known;
//   * span status: ERROR (code 2) with a message for a process that recorded an `error`
//     (message: the first error's), was killed by a signal or exited non-zero; for a
//     child that exited non-zero, could not be started or whose child_ready is not
//     "ready"; for an exec (exec_result is only written when exec failed). OK (code 1) for
//     a process or child that exited with 0. UNSET (no status member) for the rest: threads,
//     regions, and processes and children whose end the trace does not hold;
//   * each `error` of a process (the first 100) as an "exception" span event of the
//     process span (exception.type "trace2.error", exception.message, trace2.error.format);
//   * scope name "tracewire" and version kOtlpScopeVersion;
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

// The instrumentation scope of every span, and the telemetry.sdk.version resource value.
inline constexpr char kOtlpScopeName[] = "tracewire";
inline constexpr char kOtlpScopeVersion[] = "0.1.0";

// The OTLP/JSON formatter ("otlp"). It reads no option.
std::unique_ptr<Formatter> MakeOtlpFormatter(const FormatterOptions& options);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_OTLP_TARGET_H_
