// `tracewire listen`: collects traces from a Unix socket, optionally forwarding them over OTLP
// (listen.h). Its Command holds its help, its flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_LISTEN_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_LISTEN_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `listen` command.
const Command& ListenCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_LISTEN_COMMAND_H_
