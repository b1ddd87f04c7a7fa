// `tracewire dump`: lists every frame and record of a trace, file after file for a directory
// (dump.h). Its Command holds its help, its flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_DUMP_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_DUMP_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `dump` command.
const Command& DumpCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DUMP_COMMAND_H_
