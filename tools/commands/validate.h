// `tracewire validate`: reads a whole trace with every check of the reader and reports
// whether it is valid.
#ifndef TRACEWIRE_TOOLS_COMMANDS_VALIDATE_H_
#define TRACEWIRE_TOOLS_COMMANDS_VALIDATE_H_

#include <string>

namespace tracewire::tools {

// Validates the trace at `input` (FILE, DIR or "-"). Prints "<input>: valid: ..." with the
// event, generation and process counts on stdout and returns 0, or prints the reader's
// error (which names the generation and byte offset) on stderr and returns 1; 2 on I/O
// errors. Generations are decoded on `jobs` threads (0: one per core; see DecodingJobs).
int Validate(const std::string& input, int jobs = 0);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_VALIDATE_H_
