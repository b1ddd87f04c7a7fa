// `tracewire report`: writes an HTML report of a trace (report.h). Its Command holds its help, its
// flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_REPORT_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_REPORT_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `report` command.
const Command& ReportCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_REPORT_COMMAND_H_
