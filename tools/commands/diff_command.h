// `tracewire diff`: what changed between two runs or two sets of runs (diff.h). Its
// Command holds its help, its flags and how it reads its two sides.
#ifndef TRACEWIRE_TOOLS_COMMANDS_DIFF_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_DIFF_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `diff` command.
const Command& DiffCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DIFF_COMMAND_H_
