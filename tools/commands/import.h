// `tracewire import`: converts a trace of another tool into a tracewire trace. The one
// input format today is git's Trace2 EVENT stream (tools/trace2_import/trace2_import.h).
#ifndef TRACEWIRE_TOOLS_COMMANDS_IMPORT_H_
#define TRACEWIRE_TOOLS_COMMANDS_IMPORT_H_

#include <memory>
#include <string>

#include "reader/byte_source.h"
#include "tools/trace2_import/trace2_import.h"

namespace tracewire::tools {

// Reads `input` ("-" = stdin), converts it and writes the trace to `output`. Returns the
// exit code: 1 if the input is not a valid EVENT stream (the message names the line).
int Import(const std::string& input, const std::string& output, ImportOptions options);

// Import of an opened `source`, named `input` in messages.
int Import(std::unique_ptr<reader::ByteSource> source, const std::string& input,
           const std::string& output, ImportOptions options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_IMPORT_H_
