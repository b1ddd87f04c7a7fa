// Raw, spec-driven dump of a trace: every frame and record with its byte offset, driven
// only by the EventSpec table (the `tracewire dump` subcommand).
#ifndef TRACEWIRE_TOOLS_COMMANDS_DUMP_H_
#define TRACEWIRE_TOOLS_COMMANDS_DUMP_H_

#include "absl/status/status.h"
#include "reader/byte_source.h"
#include "tools/cli/output_file.h"

namespace tracewire::tools {

// Writes one line per frame and per record of the trace read from `source` to `out`. A
// file header may appear before any frame (writers repeat it before each generation).
// Streams: memory holds one frame at a time (a batch is at most 64 KiB; a compressed
// generation, and its decompressed content, at most the format's generation limit).
// Stops at the first error and returns it (everything before it has been written to
// `out`'s buffer); errors of `out` are returned too.
absl::Status DumpTrace(reader::ByteSource* source, OutputFile* out);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DUMP_H_
