// ByteSource: a forward-only stream of trace bytes (file, fd, FILE*, memory, chunks). The
// reader pulls from it in bounded chunks and never needs the whole input at once.
#ifndef TRACEWIRE_READER_BYTE_SOURCE_H_
#define TRACEWIRE_READER_BYTE_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tracewire::reader {

// A forward-only byte stream.
class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Reads up to `size` (> 0) bytes into `buffer` and returns how many were read; 0 means
  // the end of the input. Errors are I/O errors of the underlying stream.
  virtual absl::StatusOr<size_t> Read(char* buffer, size_t size) = 0;

  // Total input size in bytes if known up front (a regular file), else nullopt.
  virtual std::optional<uint64_t> Size() const { return std::nullopt; }

  // Name for error messages (a path, "<stdin>", ...); may be empty.
  virtual std::string Name() const { return ""; }
};

// Reads from `bytes` without copying; `bytes` must outlive the source.
std::unique_ptr<ByteSource> MemorySource(absl::string_view bytes, std::string name = "");

// Pulls chunks from `next_chunk`, which returns the next chunk or an empty view at the end.
// A chunk must stay valid until the following call. Suits push-style producers (pipes,
// sockets, network buffers) that hand out absl::string_view pieces.
std::unique_ptr<ByteSource> ChunkSource(
    std::function<absl::StatusOr<absl::string_view>()> next_chunk, std::string name = "");

// Reads from the file descriptor `fd` (file, pipe, socket, stdin). Closes it on
// destruction if `owned`. EINTR is retried.
std::unique_ptr<ByteSource> FdSource(int fd, bool owned, std::string name = "");

// Reads from `file` with fread; never closes it.
std::unique_ptr<ByteSource> StdioSource(std::FILE* file, std::string name = "");

// Opens `path` for reading ("-" means stdin). Fails with NotFound/PermissionDenied/... as
// open(2) does.
absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path);

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_BYTE_SOURCE_H_
