// Reading a Go execution trace wherever a tracewire trace is accepted: a file or stream
// that starts with Go's header ("go 1.") is read as the tracewire trace it converts into,
// converted a generation at a time as it is read (GoImporter).
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
// If the conversion fails, the read that needs it fails with GoImporter's error, so that
// readers report it as damage of the trace.
absl::StatusOr<std::unique_ptr<reader::ByteSource>> ConvertedGoTrace(std::string bytes,
                                                                     const std::string& name,
                                                                     bool salvage);

// Reads the first bytes of `source` (a stream read once: stdin, a pipe) and says in *is_go
// whether they are Go's header; the result delivers every byte of `source`, those read to
// look included. Errors: I/O errors of `source`.
absl::StatusOr<std::unique_ptr<reader::ByteSource>> PeekGoTrace(
    std::unique_ptr<reader::ByteSource> source, bool* is_go);

// Reads `source` to its end.
absl::StatusOr<std::string> ReadWhole(reader::ByteSource* source);

// Tells a Go execution trace on a stream read once (stdin, a pipe) by its first bytes: if
// `source` starts with Go's header, the result is the tracewire trace it converts into (as
// ConvertedGoTrace's, converted as it is read); otherwise the result delivers every byte of
// `source`, those read to look included. *is_go (if given) says which. Errors: I/O errors of
// `source`.
absl::StatusOr<std::unique_ptr<reader::ByteSource>> DetectGoTrace(
    std::unique_ptr<reader::ByteSource> source, bool salvage, bool* is_go = nullptr);

// ConvertedGoTrace of the file at `path`, read as it is converted. Errors: the file
// cannot be opened.
absl::StatusOr<std::unique_ptr<reader::ByteSource>> OpenGoTraceFile(const std::string& path,
                                                                    bool salvage);

}  // namespace tracewire::go_trace

#endif  // TRACEWIRE_TOOLS_GO_IMPORT_GO_TRACE_SOURCE_H_
