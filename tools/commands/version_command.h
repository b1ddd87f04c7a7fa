// `tracewire version`: prints the version of tracewire and of its trace format (also `tracewire
// --version`). Its Command holds its help, its flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_VERSION_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_VERSION_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `version` command.
const Command& VersionCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_VERSION_COMMAND_H_
