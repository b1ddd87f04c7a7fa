// `tracewire help`: shows the list of commands or the help of one. Its Command holds its help, its
// flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_HELP_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_HELP_COMMAND_H_

#include "absl/strings/string_view.h"
#include "tools/cli/command.h"

namespace tracewire::tools {

// The `help` command.
const Command& HelpCommand();

// True for the words that ask for help in place of a command or of its argument: --help,
// -help and -h.
bool IsHelpFlag(absl::string_view word);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_HELP_COMMAND_H_
