// `tracewire import`: converts git's Trace2 EVENT stream into a trace (import.h). Its Command holds
// its help, its flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_IMPORT_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_IMPORT_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `import` command.
const Command& ImportCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_IMPORT_COMMAND_H_
