// `tracewire stats`: prints the statistics of a trace (tools/analysis/trace_stats.h).
#ifndef TRACEWIRE_TOOLS_COMMANDS_STATS_H_
#define TRACEWIRE_TOOLS_COMMANDS_STATS_H_

#include <cstddef>
#include <string>

namespace tracewire::tools {

// Reads the trace at `input` (FILE, DIR or "-") and prints its statistics on stdout, with
// the `top` longest regions. Returns the exit code (1 if the trace is invalid). Generations
// are decoded on `jobs` threads (0: one per core; see DecodingJobs).
int Stats(const std::string& input, size_t top, int jobs = 0);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_STATS_H_
