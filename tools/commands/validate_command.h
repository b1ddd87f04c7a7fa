// `tracewire validate`: checks a whole trace with every rule of the reader (validate.h). Its
// Command holds its help, its flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_VALIDATE_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_VALIDATE_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `validate` command.
const Command& ValidateCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_VALIDATE_COMMAND_H_
