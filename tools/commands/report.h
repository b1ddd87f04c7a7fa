// `tracewire report TRACE [-o report.html]`: writes an HTML report of a trace (a file, a
// directory of per-process files, or -): see tools/analysis/report_html.h for what it shows.
#ifndef TRACEWIRE_TOOLS_COMMANDS_REPORT_H_
#define TRACEWIRE_TOOLS_COMMANDS_REPORT_H_

#include <string>

namespace tracewire::tools {

// Writes the report of `input` to `output` ("" or "-" for stdout). Returns the exit code:
// 0; 1 if the trace is invalid (the report of the events before the damage is still
// written, with a warning at its top); 2 for usage and I/O errors.
int Report(const std::string& input, const std::string& output);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_REPORT_H_
