// `tracewire decode`: renders a trace in one of git's Trace2 formats (EVENT, PERF, NORMAL)
// through a targets::Formatter.
#ifndef TRACEWIRE_TOOLS_COMMANDS_DECODE_H_
#define TRACEWIRE_TOOLS_COMMANDS_DECODE_H_

#include <string>

#include "reader/event_window.h"
#include "reader/targets/formatter.h"
#include "tools/otlp/otlp_http_exporter.h"

namespace tracewire::tools {

// What to decode, how, and where to.
struct DecodeOptions {
  std::string input;             // FILE, DIR or "-"
  std::string output;            // "" or "-" for stdout
  std::string format = "event";  // "event", "perf", "normal", "chrome", "otlp"
  targets::FormatterOptions formatter;
  bool salvage = false;  // deliver what survives, report losses on stderr
  bool follow = false;  // tail a growing FILE until SIGINT/SIGTERM (tools/commands/decode_follow.h)
  // With an endpoint (format "otlp"): send the requests over OTLP/HTTP; `output` is then
  // written only if it is set.
  OtlpHttpOptions otlp;
  int jobs = 0;  // threads decoding generations (0: one per core; see DecodingJobs)
  // Time and process windows (--since, --until, --sid, --pid): reader/event_window.h.
  reader::EventWindowOptions window;
};

// Runs the subcommand; returns the exit code (tools/cli/exit_codes.h). Output goes to
// options.output (and/or the OTLP endpoint), errors and loss reports to stderr. On an
// invalid trace everything before the error is written (and sent) first. Spans the OTLP
// receiver did not accept make the exit code kExitNotDelivered.
int Decode(const DecodeOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DECODE_H_
