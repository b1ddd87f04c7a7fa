#include "tools/commands/run_command.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "tools/cli/usage.h"
#include "tools/commands/formatter_flags.h"
#include "tools/commands/run.h"
#include "tools/commands/shared_flags.h"

namespace tracewire::tools {
namespace {

// The help of `tracewire run`.
constexpr char kHelp[] =
    "usage: tracewire run [--format=perf|normal|event] [--brief] [--nesting=N] [-o FILE]\n"
    "                     [--out=DIR] [--] COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND with tracing on and prints the events of COMMAND and of every traced\n"
    "process it starts while they run, like GIT_TRACE2_PERF=1 does for git: each\n"
    "process's events appear a generation at a time (every 100 ms unless\n"
    "TRACEWIRE_GENERATION_MS is set). COMMAND is started with TRACEWIRE set to a Unix\n"
    "socket that tracewire listens on. Flags go before COMMAND; `--` ends them.\n"
    "\n"
    "Flags:\n"
    "  --format=F   perf (default, git's PERF columns), normal or event\n"
    "  --brief      brief mode: no time and file:line prefixes\n"
    "  --nesting=N  event only (a usage error with perf and normal): omit regions and\n"
    "               data nested deeper than N (default 2)\n"
    "  -o FILE      write the events to FILE instead of stderr\n"
    "  --out=DIR    also keep the traces in DIR (one file per process), for\n"
    "               `tracewire decode DIR` or `tracewire report DIR` later\n"
    "\n"
    "Exit code: COMMAND's (128 + N if signal N ended it; 127 if it was not found, 126\n"
    "if it could not be run); 2 for a usage error.\n";

// `run` takes its flags before COMMAND only: COMMAND's own arguments may look like flags.
// The words of COMMAND become the positional arguments.
absl::StatusOr<CommandLine> ParseRunArguments(const Command& command,
                                              absl::Span<const std::string> words) {
  // The flags whose value may be the next word.
  std::vector<absl::string_view> value_flags;
  for (const absl::CommandLineFlag* flag : command.flags) {
    if (!flag->IsOfType<bool>()) value_flags.push_back(flag->Name());
  }
  RunArguments split = SplitRunArguments(words, value_flags);
  absl::StatusOr<CommandLine> line = ParseCommandLine(split.flags, command.flags);
  if (!line.ok()) return line;
  line->positional = std::move(split.command);
  return line;
}

int RunRunCommand(const Command& command, const CommandLine& line) {
  if (line.positional.empty()) return UsageError(command, "expects a COMMAND to run");
  RunOptions options;
  options.format = line.Has("format") ? absl::GetFlag(FLAGS_format) : "perf";
  if (options.format != "perf" && options.format != "normal" && options.format != "event") {
    return UsageError(command, "--format must be perf, normal or event");
  }
  absl::StatusOr<targets::FormatterOptions> formatter = FormatterOptionsFromFlags();
  if (!formatter.ok()) return UsageError(command, formatter.status().message());
  options.formatter = *formatter;
  if (const absl::Status applies = CheckFormatterFlagsApply(line, options.format); !applies.ok()) {
    return UsageError(command, applies.message());
  }
  options.output = absl::GetFlag(FLAGS_o);
  options.trace_dir = absl::GetFlag(FLAGS_out);
  options.command = line.positional;
  return Run(options);
}

}  // namespace

const Command& RunCommand() {
  static const Command* const command = new Command{
      .name = "run",
      .summary = "run a command traced and print its events live",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_format), FlagOf(FLAGS_o), FlagOf(FLAGS_out), FlagOf(FLAGS_brief),
                FlagOf(FLAGS_nesting)},
      .parse = ParseRunArguments,
      .run = RunRunCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
