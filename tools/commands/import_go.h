// `tracewire import --from=go`: a Go execution trace (runtime/trace, Go 1.22 or 1.23)
// converted into a tracewire trace (tools/go_import/go_import.h).
#ifndef TRACEWIRE_TOOLS_COMMANDS_IMPORT_GO_H_
#define TRACEWIRE_TOOLS_COMMANDS_IMPORT_GO_H_

#include <memory>
#include <string>

#include "reader/byte_source.h"

namespace tracewire::tools {

// Reads the Go trace `input` ("-" = stdin) and writes the tracewire trace to `output`.
// With `salvage`, the damaged generations are dropped and reported, the others kept.
// Returns the exit code: 1 if the input is not a readable Go trace (the message names the
// version, or the generation and what broke), 2 for usage and I/O errors.
int ImportGo(const std::string& input, const std::string& output, bool compress, bool salvage);

// ImportGo of an opened `source` (read to its end), named `input` in messages.
int ImportGo(std::unique_ptr<reader::ByteSource> source, const std::string& input,
             const std::string& output, bool compress, bool salvage);

// True if the file `input` starts with a Go execution trace's header ("-" never does).
bool IsGoTraceInput(const std::string& input);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_IMPORT_GO_H_
