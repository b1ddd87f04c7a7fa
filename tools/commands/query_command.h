// The `tracewire query` Command (tools/commands/query.h runs it).
#ifndef TRACEWIRE_TOOLS_COMMANDS_QUERY_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_QUERY_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// `tracewire query`.
const Command& QueryCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_QUERY_COMMAND_H_
