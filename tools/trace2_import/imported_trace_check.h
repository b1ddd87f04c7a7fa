// The importers' last step: a converted trace read back with tracewire's own reader.
#ifndef TRACEWIRE_TOOLS_TRACE2_IMPORT_IMPORTED_TRACE_CHECK_H_
#define TRACEWIRE_TOOLS_TRACE2_IMPORT_IMPORTED_TRACE_CHECK_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "reader/reader.h"

namespace tracewire::tools {

// Decodes every event of `trace` (named `source_name` in errors). OK when the whole trace
// decodes; otherwise an internal error naming what the reader rejected, since an importer
// that writes a trace its own reader rejects has a bug.
absl::Status CheckImportedTrace(absl::string_view trace, absl::string_view source_name);

// Reads every event of `reader` to the end of its input: OK there, else the first error
// the reader returned (as it returned it). The importers that stream their output read it
// back through this as they write it.
absl::Status ReadToEnd(reader::Reader* reader);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_TRACE2_IMPORT_IMPORTED_TRACE_CHECK_H_
