// Exit codes of the `tracewire` command (docs/cli.md).
#ifndef TRACEWIRE_TOOLS_CLI_EXIT_CODES_H_
#define TRACEWIRE_TOOLS_CLI_EXIT_CODES_H_

namespace tracewire::tools {

// Success.
inline constexpr int kExitOk = 0;
// The trace (or the input to import) is invalid, or data was lost in salvage mode.
inline constexpr int kExitInvalid = 1;
// A usage error (unknown command or flag, bad flag value, wrong arguments) or an I/O error.
inline constexpr int kExitUsage = 2;
// Spans an OTLP receiver did not accept (--otlp-endpoint): unreachable, refused, timed out,
// dropped from a full queue or rejected; what was not delivered is reported on stderr.
inline constexpr int kExitNotDelivered = 3;
// Files of a directory input could not be read (each is named on stderr) and were skipped;
// every other file was read, and the output holds all of their events.
inline constexpr int kExitSkipped = 4;
// `diff --fail-if`: a condition of the gate was met (each is named on stderr).
inline constexpr int kExitRegression = 5;

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_EXIT_CODES_H_
