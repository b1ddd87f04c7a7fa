// Striped decoding: `tracewire decode --jobs=N` (N >= 2) on N threads whose output is the
// serial output byte for byte.
//
// Each thread reads the whole input with its own reader and formatter. The events are cut
// into stripes of a fixed number of events; thread w writes stripes w, w + N, w + 2N, ...
// and runs Formatter::Skip on the others' events (a context-free formatter needs neither:
// those events are passed over without being decoded in full), so every formatter's state
// at every event is the serial formatter's state (Formatter::Skip's contract). The calling
// thread writes the stripes in order; the thread owning the stripe after the last event
// writes Finish's output. Every thread meets the same errors at the same event, so errors,
// loss reports and skipped files are the serial ones too.
//
// Memory: N serial readers and formatters (each holding one generation: 8 MiB with the
// runtime's default), plus at most kQueuedStripes finished stripes of text per thread and
// the one it is writing.
#ifndef TRACEWIRE_TOOLS_COMMANDS_DECODE_STRIPES_H_
#define TRACEWIRE_TOOLS_COMMANDS_DECODE_STRIPES_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "reader/targets/formatter.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"
#include "tools/commands/decode.h"
#include "tools/commands/decode_output.h"

namespace tracewire::tools {

// Events per stripe (the environment variable TRACEWIRE_DECODE_STRIPE_EVENTS overrides it,
// for tests that need many stripes in a small trace).
inline constexpr uint64_t kDefaultStripeEvents = 8192;

// Finished stripes a thread may hold before the output takes them (with the one it writes:
// about 4 MB of EVENT JSON per thread).
inline constexpr size_t kQueuedStripes = 1;

// True if `decode` with these options is decoded in stripes: two or more jobs, an input
// that can be read more than once (not stdin, not --follow), and a formatter whose Skip is
// cheap (Formatter::skips_cheaply).
bool DecodesInStripes(const DecodeOptions& options, int jobs, const targets::Formatter& formatter);

// What the decode met, as the serial loop reports it.
struct StripedResult {
  absl::Status open_error;   // a thread could not open the input (exit code 2)
  absl::Status trace_error;  // the read stopped at this error
  absl::Status write_error;  // the output failed
};

// Decodes the trace on `jobs` threads into *out (the formatter made from `options`),
// reporting progress. `input` is options.input opened for the first thread (its loss
// reports and skipped files are the command's when this returns); the others open their
// own. Finish's output is written unless the read stopped at an error.
StripedResult DecodeInStripes(const DecodeOptions& options, int jobs, TraceInput* input,
                              DecodeOutput* out, Progress* progress);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DECODE_STRIPES_H_
