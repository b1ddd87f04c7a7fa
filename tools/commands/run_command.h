// `tracewire run`: runs a command traced and prints its events live (run.h); its flags come before
// COMMAND. Its Command holds its help, its flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_RUN_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_RUN_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `run` command.
const Command& RunCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_RUN_COMMAND_H_
