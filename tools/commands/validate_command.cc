#include "tools/commands/validate_command.h"

#include "absl/flags/flag.h"
#include "tools/cli/usage.h"
#include "tools/commands/shared_flags.h"
#include "tools/commands/validate.h"

namespace tracewire::tools {
namespace {

// The help of `tracewire validate`.
constexpr char kHelp[] =
    "usage: tracewire validate [--jobs=N] FILE|DIR|-\n"
    "\n"
    "Reads the whole trace with every check of the reader. Prints\n"
    "\"FILE: valid: N events, G generations, P processes\" and exits 0, or prints the\n"
    "reader's error (naming the generation, thread, event and byte offset) and exits 1.\n"
    "\n"
    "Flags:\n"
    "  --jobs=N     check generations on N threads (default 0: one per core; 1:\n"
    "               serial); the result is the same for every N\n"
    "\n"
    "Exit codes: 0 valid; 1 invalid or truncated; 2 usage or I/O error; 4 files of DIR\n"
    "that could not be read (each named on stderr; the others are validated).\n";

int RunValidateCommand(const Command& command, const CommandLine& line) {
  if (line.positional.size() != 1) return UsageError(command, "expects one FILE, DIR or -");
  const int jobs = absl::GetFlag(FLAGS_jobs);
  if (jobs < 0) return UsageError(command, "--jobs must be >= 0");
  return Validate(line.positional[0], jobs);
}

}  // namespace

const Command& ValidateCommand() {
  static const Command* const command = new Command{
      .name = "validate",
      .summary = "check a whole trace with every rule of the reader",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_jobs)},
      .run = RunValidateCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
