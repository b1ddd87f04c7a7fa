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

// Sources over many files (the files of a trace directory, read side by side by a
// ProcessTreeReader) that hold at most `max_open` descriptors at once: a file is open
// while it is read, and the least recently read one is closed when another needs its
// descriptor. A file reopened later is read on from where it stopped (pread), and must
// still be the same file (device and inode): a file replaced meanwhile fails with
// DataLoss rather than mixing two files' bytes.
class FileSourcePool {
 public:
  // `max_open` of 0 picks a quarter of the soft RLIMIT_NOFILE, between 8 and 256.
  explicit FileSourcePool(size_t max_open = 0);
  ~FileSourcePool();

  // A source over the regular file `path`, checked by opening it now (errors as
  // OpenFileSource's). The pool's state is shared: sources may outlive the pool.
  absl::StatusOr<std::unique_ptr<ByteSource>> Open(const std::string& path);

  // Descriptors the pool's sources hold open now.
  size_t open_count() const;

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_BYTE_SOURCE_H_
