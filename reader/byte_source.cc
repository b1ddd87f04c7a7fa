#include "reader/byte_source.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <list>
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

// ---- FileSourcePool ----

// One file of the pool.
struct PooledFile {
  std::string path;
  int fd = -1;
  uint64_t offset = 0;
  dev_t dev = 0;
  ino_t ino = 0;
  uint64_t size = 0;
  std::list<PooledFile*>::iterator lru;  // valid while open
};

struct FileSourcePool::Shared {
  size_t max_open = 0;
  std::list<PooledFile*> open;  // most recently read first

  // Opens `file` (closing the least recently read one if the pool is full).
  absl::Status Acquire(PooledFile* file, bool first) {
    if (file->fd >= 0) {
      open.splice(open.begin(), open, file->lru);
      return absl::OkStatus();
    }
    while (open.size() >= max_open && !open.empty()) Release(open.back());
    const int fd = ::open(file->path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus(errno, "open", file->path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
      const int error = errno;
      close(fd);
      return ErrnoStatus(error, "fstat", file->path);
    }
    if (first) {
      file->dev = st.st_dev;
      file->ino = st.st_ino;
      file->size = S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
    } else if (st.st_dev != file->dev || st.st_ino != file->ino) {
      close(fd);
      return absl::DataLossError(absl::StrFormat(
          "%s: the file was replaced while it was being read (at byte offset %d)", file->path,
          file->offset));
    }
    file->fd = fd;
    open.push_front(file);
    file->lru = open.begin();
    return absl::OkStatus();
  }

  void Release(PooledFile* file) {
    if (file->fd < 0) return;
    close(file->fd);
    file->fd = -1;
    open.erase(file->lru);
  }
};

namespace {

class PooledFileSource : public ByteSource {
 public:
  PooledFileSource(std::shared_ptr<FileSourcePool::Shared> shared, std::unique_ptr<PooledFile> file)
      : shared_(std::move(shared)), file_(std::move(file)) {}
  ~PooledFileSource() override { shared_->Release(file_.get()); }

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    if (absl::Status s = shared_->Acquire(file_.get(), /*first=*/false); !s.ok()) return s;
    while (true) {
      const ssize_t n = pread(file_->fd, buffer, size, static_cast<off_t>(file_->offset));
      if (n >= 0) {
        file_->offset += static_cast<uint64_t>(n);
        return static_cast<size_t>(n);
      }
      if (errno != EINTR) return ErrnoStatus(errno, "read", file_->path);
    }
  }
  std::optional<uint64_t> Size() const override { return file_->size; }
  std::string Name() const override { return file_->path; }

 private:
  std::shared_ptr<FileSourcePool::Shared> shared_;
  std::unique_ptr<PooledFile> file_;
};

}  // namespace

FileSourcePool::FileSourcePool(size_t max_open) : shared_(std::make_shared<Shared>()) {
  if (max_open == 0) {
    struct rlimit limit;
    max_open = 256;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      max_open = std::clamp<size_t>(static_cast<size_t>(limit.rlim_cur / 4), 8, 256);
    }
  }
  shared_->max_open = max_open;
}

FileSourcePool::~FileSourcePool() = default;

size_t FileSourcePool::open_count() const { return shared_->open.size(); }

absl::StatusOr<std::unique_ptr<ByteSource>> FileSourcePool::Open(const std::string& path) {
  auto file = std::make_unique<PooledFile>();
  file->path = path;
  if (absl::Status s = shared_->Acquire(file.get(), /*first=*/true); !s.ok()) return s;
  return std::make_unique<PooledFileSource>(shared_, std::move(file));
}

}  // namespace tracewire::reader
