#include "tools/commands/help_command.h"

#include <cstdio>
#include <string>

#include "tools/cli/exit_codes.h"
#include "tools/cli/usage.h"
#include "tools/commands/command_list.h"

namespace tracewire::tools {
namespace {

// The help of `tracewire help`.
constexpr char kHelp[] =
    "usage: tracewire help [COMMAND]\n"
    "       tracewire COMMAND --help\n"
    "\n"
    "Shows the help of COMMAND (the same as `tracewire COMMAND --help`), or the list\n"
    "of commands.\n";

// Every word is an argument: `help --help` asks for the help of `help`.
absl::StatusOr<CommandLine> ParseHelpArguments(const Command&,
                                               absl::Span<const std::string> words) {
  CommandLine line;
  line.positional.assign(words.begin(), words.end());
  return line;
}

int RunHelpCommand(const Command& command, const CommandLine& line) {
  if (line.positional.empty()) {
    std::fputs(GlobalUsage(Commands()).c_str(), stdout);
    return kExitOk;
  }
  if (line.positional.size() > 1) return UsageError(command, "expects at most one command");
  const std::string& word = line.positional[0];
  const Command* shown = IsHelpFlag(word) ? &command : FindCommand(word);
  if (shown == nullptr) return UnknownCommand(word);
  std::fwrite(shown->help.data(), 1, shown->help.size(), stdout);
  return kExitOk;
}

}  // namespace

bool IsHelpFlag(absl::string_view word) {
  return word == "--help" || word == "-help" || word == "-h";
}

const Command& HelpCommand() {
  static const Command* const command = new Command{
      .name = "help",
      .summary = "show the help of a command",
      .help = kHelp,
      .parse = ParseHelpArguments,
      .run = RunHelpCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
