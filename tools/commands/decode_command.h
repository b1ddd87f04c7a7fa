// `tracewire decode`: renders a trace in one of git's Trace2 formats or as Chrome/OTLP JSON
// (decode.h). Its Command holds its help, its flags and how it checks its arguments.
#ifndef TRACEWIRE_TOOLS_COMMANDS_DECODE_COMMAND_H_
#define TRACEWIRE_TOOLS_COMMANDS_DECODE_COMMAND_H_

#include "tools/cli/command.h"

namespace tracewire::tools {

// The `decode` command.
const Command& DecodeCommand();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DECODE_COMMAND_H_
