#include "tools/commands/stats_command.h"

#include <cstddef>

#include "absl/flags/flag.h"
#include "tools/cli/usage.h"
#include "tools/commands/shared_flags.h"
#include "tools/commands/stats.h"

ABSL_FLAG(int, top, 10, "stats: regions listed in each ranking");

namespace tracewire::tools {
namespace {

// The help of `tracewire stats`.
constexpr char kHelp[] =
    "usage: tracewire stats [--top=N] [--jobs=N] FILE|DIR|-\n"
    "\n"
    "Prints statistics of a trace: processes, generations (and how many are\n"
    "compressed), events and bytes per event, the zstd compression ratio of compressed\n"
    "generations, events by Trace2 event kind and by thread, the regions with the\n"
    "most total and self time (total minus directly nested regions), by\n"
    "category/label, and the stacks most events were recorded with (TRACEWIRE_STACKS),\n"
    "symbolized.\n"
    "\n"
    "Flags:\n"
    "  --top=N   regions and stacks listed in each ranking (default 10)\n"
    "  --jobs=N  decode generations on N threads (default 0: one per core; 1: serial);\n"
    "            the statistics are the same for every N\n"
    "\n"
    "Exit codes: 0 success; 1 invalid trace; 2 usage or I/O error; 4 files of DIR that\n"
    "could not be read were skipped (each named on stderr; the others are counted).\n";

int RunStatsCommand(const Command& command, const CommandLine& line) {
  if (line.positional.size() != 1) return UsageError(command, "expects one FILE, DIR or -");
  const int top = absl::GetFlag(FLAGS_top);
  if (top < 0) return UsageError(command, "--top must be >= 0");
  const int jobs = absl::GetFlag(FLAGS_jobs);
  if (jobs < 0) return UsageError(command, "--jobs must be >= 0");
  return Stats(line.positional[0], static_cast<size_t>(top), jobs);
}

}  // namespace

const Command& StatsCommand() {
  static const Command* const command = new Command{
      .name = "stats",
      .summary = "count events by kind and thread, time regions, size generations",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_top), FlagOf(FLAGS_jobs)},
      .run = RunStatsCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
