// `tracewire stats`: prints the statistics of a trace (stats.h). Its Command holds its help, its
// flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_STATS_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_STATS_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `stats` command.
const Command& StatsCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_STATS_COMMAND_H_
