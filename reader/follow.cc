#include "reader/follow.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tracewire::reader {
namespace {

class FollowSource : public ByteSource {
 public:
  FollowSource(std::string path, FollowOptions options)
      : path_(std::move(path)), options_(std::move(options)), last_growth_(absl::Now()) {}

  ~FollowSource() override {
    if (fd_ >= 0) close(fd_);
  }

  absl::StatusOr<size_t> Read(char* buffer, size_t size) override {
    while (true) {
      if (fd_ < 0) {
        fd_ = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0 && (errno != ENOENT || !options_.wait_for_file)) {
          return absl::ErrnoToStatus(errno, absl::StrCat("open ", path_));
        }
      }
      if (fd_ >= 0) {
        const ssize_t n = read(fd_, buffer, size);
        if (n < 0) {
          if (errno == EINTR) continue;
          return absl::ErrnoToStatus(errno, absl::StrCat("read ", path_));
        }
        if (n > 0) {
          offset_ += n;
          last_growth_ = absl::Now();
          return static_cast<size_t>(n);
        }
        struct stat st;
        if (fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) < offset_) {
          return absl::DataLossError(absl::StrCat(path_, " shrank from ", offset_, " to ",
                                                  st.st_size, " bytes while being followed"));
        }
      }
      // At the end of what the file holds.
      if (stopping_) return 0;
      if (options_.stop && options_.stop()) {
        stopping_ = true;  // one more read takes what was appended meanwhile
        continue;
      }
      if (absl::Now() - last_growth_ >= options_.idle_timeout) return 0;
      if (options_.on_wait) options_.on_wait();
      absl::SleepFor(options_.poll_interval);
    }
  }

  std::string Name() const override { return path_; }

 private:
  std::string path_;
  FollowOptions options_;
  int fd_ = -1;
  uint64_t offset_ = 0;
  bool stopping_ = false;
  absl::Time last_growth_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ByteSource>> FollowFileSource(const std::string& path,
                                                             FollowOptions options) {
  if (path.empty() || path == "-") {
    return absl::InvalidArgumentError("following needs a file path, not standard input");
  }
  if (!options.wait_for_file && access(path.c_str(), R_OK) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  }
  return std::make_unique<FollowSource>(path, std::move(options));
}

absl::StatusOr<std::unique_ptr<Reader>> OpenFollowReader(const std::string& path,
                                                         FollowOptions options,
                                                         ReaderOptions reader_options) {
  absl::StatusOr<std::unique_ptr<ByteSource>> source = FollowFileSource(path, std::move(options));
  if (!source.ok()) return source.status();
  return std::make_unique<Reader>(std::move(*source), reader_options);
}

}  // namespace tracewire::reader
