#include "tools/commands/shared_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, o, "", "decode, import, run, report: output file (- for stdout)");
ABSL_FLAG(std::string, out, "",
          "listen: directory of the collected traces; run: keep the traces in this directory");
ABSL_FLAG(int, jobs, 0,
          "decode, validate, stats: threads decoding generations (0: one per core, 1: serial)");
