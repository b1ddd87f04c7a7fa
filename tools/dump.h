// Raw, spec-driven dump of a trace: every frame and record with its byte offset, driven
// only by the EventSpec table (the `tracewire dump` subcommand).
#ifndef TRACEWIRE_TOOLS_DUMP_H_
#define TRACEWIRE_TOOLS_DUMP_H_

#include <ostream>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tracewire::tools {

// Writes one line per frame and per record of `trace` to `out`. A file header may appear
// before any frame (writers repeat it before each generation). Stops at the first error
// and returns it (everything before it has been printed).
absl::Status DumpTrace(absl::string_view trace, std::ostream& out);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_DUMP_H_
