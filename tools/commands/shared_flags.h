// The flags several commands accept, defined once: -o (decode, import, run, report), --out
// (listen, run) and --jobs (decode, validate, stats). The formatter's flags are in
// formatter_flags.h, the OTLP/HTTP export's in otlp_flags.h; a flag only one command takes
// is defined in that command's file.
#ifndef TRACEWIRE_TOOLS_COMMANDS_SHARED_FLAGS_H_
#define TRACEWIRE_TOOLS_COMMANDS_SHARED_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"

// The output file ("-" or "" for stdout, or the command's default stream).
ABSL_DECLARE_FLAG(std::string, o);
// The directory of the collected traces.
ABSL_DECLARE_FLAG(std::string, out);
// Threads decoding generations (0: one per core, 1: serial).
ABSL_DECLARE_FLAG(int, jobs);

#endif  // TRACEWIRE_TOOLS_COMMANDS_SHARED_FLAGS_H_
