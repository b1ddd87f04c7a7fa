// The read loop every command that consumes a trace's events one by one shares (decode,
// report, query, stats), and the salvage loss report they print at its end.
#ifndef TRACEWIRE_TOOLS_CLI_EVENT_LOOP_H_
#define TRACEWIRE_TOOLS_CLI_EVENT_LOOP_H_

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"

namespace tracewire::tools {

// Reads the events of `input` in order and passes each to `consume`, until the end of the
// input, a read error (returned: a trace error or an I/O error, see IsIoError) or
// `consume` returning false (OK returned; the caller knows why it stopped). Reports
// progress (bytes read, events read) on `progress`; `*events` counts the events read.
absl::Status ReadEvents(TraceInput* input, Progress* progress,
                        absl::FunctionRef<bool(const reader::Event&)> consume, uint64_t* events);

// Prints the loss reports of a salvage read of `input` on stderr ("tracewire COMMAND:
// FILE: summary", then one indented line per error); returns true if anything was lost.
bool ReportLosses(absl::string_view command, const TraceInput& input);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_EVENT_LOOP_H_
