// Reading a Go execution trace wherever a tracewire trace is accepted: a file that starts
// with Go's header ("go 1.") is converted whole (ImportGoTrace) and read as the tracewire
// trace that conversion produces.
#ifndef TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_SOURCE_H_
#define TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_SOURCE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "reader/byte_source.h"

namespace tracewire::go_trace {

// True if the file at `path` starts with a Go execution trace's header (any Go version);
// false if not, or if it cannot be read.
bool IsGoTraceFile(const std::string& path);

// The tracewire trace converted from the Go trace `bytes`, as a byte source named `name`.
// With `salvage`, damaged generations are dropped (a line on stderr says which and why).
// If the conversion fails, the source's first read fails with ImportGoTrace's error, so
// that readers report it as damage of the trace.
absl::StatusOr<std::unique_ptr<reader::ByteSource>> ConvertedGoTrace(std::string bytes,
                                                                     const std::string& name,
                                                                     bool salvage);

// ConvertedGoTrace of the file at `path`.
absl::StatusOr<std::unique_ptr<reader::ByteSource>> OpenGoTraceFile(const std::string& path,
                                                                    bool salvage);

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_SOURCE_H_
