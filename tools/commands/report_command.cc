#include "tools/commands/report_command.h"

#include "absl/flags/flag.h"
#include "tools/cli/usage.h"
#include "tools/commands/diff.h"
#include "tools/commands/report.h"
#include "tools/commands/shared_flags.h"

ABSL_FLAG(bool, diff, false, "report: a differential page of two sides, BASE and NEW");

namespace tracewire::tools {
namespace {

// The help of `tracewire report`.
constexpr char kHelp[] =
    "usage: tracewire report FILE|DIR|- [-o report.html]\n"
    "       tracewire report --diff BASE NEW [-o diff.html]\n"
    "\n"
    "Writes one self-contained HTML page (no script, nothing fetched from the network)\n"
    "about the trace: its process tree with exit codes and errors, the regions with the\n"
    "most total and self time, and per process a timeline of its threads (regions by\n"
    "depth, errors marked) and of its child processes (each linked to its own section).\n"
    "Regions too short to see are drawn as one grey bar per run, so the page stays small\n"
    "for traces of millions of events. Open it in any browser.\n"
    "\n"
    "With --diff, the page compares two sides as `tracewire diff` does (each a FILE, a\n"
    "DIR of one run, or a DIR of runs): a differential flame graph of their CPU samples\n"
    "(widths of NEW; red: a larger share in NEW, blue: a smaller one) beside the table of\n"
    "changed regions and tasks.\n"
    "\n"
    "Flags:\n"
    "  --diff   compare BASE and NEW (see above)\n"
    "  -o FILE  write the page to FILE (default stdout)\n"
    "\n"
    "Exit codes: 0 success; 1 invalid trace (the report of the events before the\n"
    "damage is still written, with a warning); 2 usage or I/O error; 4 files of DIR\n"
    "that could not be read were skipped (named on stderr and at the top of the page).\n";

int RunReportCommand(const Command& command, const CommandLine& line) {
  if (absl::GetFlag(FLAGS_diff)) {
    if (line.positional.size() != 2) return UsageError(command, "--diff expects BASE and NEW");
    return DiffReport({line.positional[0]}, {line.positional[1]}, absl::GetFlag(FLAGS_o));
  }
  if (line.positional.size() != 1) return UsageError(command, "expects one FILE, DIR or -");
  return Report(line.positional[0], absl::GetFlag(FLAGS_o));
}

}  // namespace

const Command& ReportCommand() {
  static const Command* const command = new Command{
      .name = "report",
      .summary = "write an HTML report: timelines, tasks, gauges, flame graphs, top regions",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_o), FlagOf(FLAGS_diff)},
      .run = RunReportCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
