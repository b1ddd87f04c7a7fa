#include "reader/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace tracewire::reader {
namespace {

class MemoryByteSource : public ByteSource {
 public:
  MemoryByteSource(absl::string_view bytes, std::string name)
      : bytes_(bytes), name_(std::move(name)) {}

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    const size_t n = std::min(size, bytes_.size());
    if (n > 0) std::memcpy(buffer, bytes_.data(), n);
    bytes_.remove_prefix(n);
    return n;
  }
  std::optional<uint64_t> Size() const override { return total_; }
  std::string Name() const override { return name_; }

 private:
  absl::string_view bytes_;
  uint64_t total_ = bytes_.size();
  std::string name_;
};

class ChunkByteSource : public ByteSource {
 public:
  ChunkByteSource(std::function<absl::StatusOr<absl::string_view>()> next, std::string name)
      : next_(std::move(next)), name_(std::move(name)) {}

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    while (chunk_.empty()) {
      if (done_) return 0;
      absl::StatusOr<absl::string_view> chunk = next_();
      if (!chunk.ok()) return chunk.status();
      if (chunk->empty()) {
        done_ = true;
        return 0;
      }
      chunk_ = *chunk;
    }
    const size_t n = std::min(size, chunk_.size());
    std::memcpy(buffer, chunk_.data(), n);
    chunk_.remove_prefix(n);
    return n;
  }
  std::string Name() const override { return name_; }

 private:
  std::function<absl::StatusOr<absl::string_view>()> next_;
  absl::string_view chunk_;
  bool done_ = false;
  std::string name_;
};

absl::Status ErrnoStatus(int error, absl::string_view what, absl::string_view name) {
  const std::string message =
      absl::StrFormat("%s%s%s: %s", name, name.empty() ? "" : ": ", what, std::strerror(error));
  switch (error) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(message);
    default:
      return absl::UnknownError(message);
  }
}

class FdByteSource : public ByteSource {
 public:
  FdByteSource(int fd, bool owned, std::string name)
      : fd_(fd), owned_(owned), name_(std::move(name)) {
    struct stat st;
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
      const off_t pos = lseek(fd_, 0, SEEK_CUR);
      if (pos >= 0 && pos <= st.st_size) size_ = static_cast<uint64_t>(st.st_size - pos);
    }
  }
  ~FdByteSource() override {
    if (owned_) close(fd_);
  }

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    while (true) {
      const ssize_t n = read(fd_, buffer, size);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) return ErrnoStatus(errno, "read", name_);
    }
  }
  std::optional<uint64_t> Size() const override { return size_; }
  std::string Name() const override { return name_; }

 private:
  int fd_;
  bool owned_;
  std::string name_;
  std::optional<uint64_t> size_;
};

class StdioByteSource : public ByteSource {
 public:
  StdioByteSource(std::FILE* file, std::string name) : file_(file), name_(std::move(name)) {}

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    const size_t n = std::fread(buffer, 1, size, file_);
    if (n == 0 && std::ferror(file_)) return ErrnoStatus(errno, "fread", name_);
    return n;
  }
  std::string Name() const override { return name_; }

 private:
  std::FILE* file_;
  std::string name_;
};

}  // namespace

std::unique_ptr<ByteSource> MemorySource(absl::string_view bytes, std::string name) {
  return std::make_unique<MemoryByteSource>(bytes, std::move(name));
}

std::unique_ptr<ByteSource> ChunkSource(
    std::function<absl::StatusOr<absl::string_view>()> next_chunk, std::string name) {
  return std::make_unique<ChunkByteSource>(std::move(next_chunk), std::move(name));
}

std::unique_ptr<ByteSource> FdSource(int fd, bool owned, std::string name) {
  return std::make_unique<FdByteSource>(fd, owned, std::move(name));
}

std::unique_ptr<ByteSource> StdioSource(std::FILE* file, std::string name) {
  return std::make_unique<StdioByteSource>(file, std::move(name));
}

absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::string& path) {
  if (path == "-") return FdSource(STDIN_FILENO, /*owned=*/false, "<stdin>");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open", path);
  return FdSource(fd, /*owned=*/true, path);
}

}  // namespace tracewire::reader
