#include "runtime/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::runtime {

absl::StatusOr<TargetSpec> ParseTarget(absl::string_view value) {
  TargetSpec spec;
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower.empty() || lower == "0" || lower == "false") return spec;
  if (lower == "1" || lower == "true") {
    spec.kind = TargetSpec::Kind::kFd;
    spec.fd = 2;
    return spec;
  }
  if (value.size() == 1 && value[0] >= '2' && value[0] <= '9') {
    spec.kind = TargetSpec::Kind::kFd;
    spec.fd = value[0] - '0';
    return spec;
  }
  if (absl::StartsWith(value, "af_unix:")) {
    absl::string_view rest = value.substr(8);
    spec.kind = TargetSpec::Kind::kUnixSocket;
    if (absl::StartsWith(rest, "stream:")) {
      spec.socket_type = TargetSpec::SocketType::kStream;
      rest.remove_prefix(7);
    } else if (absl::StartsWith(rest, "dgram:")) {
      spec.socket_type = TargetSpec::SocketType::kDgram;
      rest.remove_prefix(6);
    }
    if (!absl::StartsWith(rest, "/") || rest.size() >= sizeof(sockaddr_un::sun_path)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "socket path must be absolute and shorter than %d bytes", sizeof(sockaddr_un::sun_path)));
    }
    spec.path = std::string(rest);
    return spec;
  }
  if (absl::StartsWith(value, "/")) {
    struct stat st;
    spec.path = std::string(value);
    spec.kind = stat(spec.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)
                    ? TargetSpec::Kind::kDirectory
                    : TargetSpec::Kind::kFile;
    return spec;
  }
  return absl::InvalidArgumentError("unknown value");
}

Destination::~Destination() { Close(); }

void Destination::Close() {
  if (owns_fd_ && fd_ >= 0) close(fd_);
  fd_ = -1;
  owns_fd_ = false;
}

namespace {

int CountDirectoryEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  int count = 0;
  while (readdir(d) != nullptr) ++count;
  closedir(d);
  return count;
}

absl::StatusOr<int> ConnectUnix(const std::string& path, int type) {
  const int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int saved = errno;
    close(fd);
    return absl::ErrnoToStatus(saved, absl::StrCat("connect ", path));
  }
  return fd;
}

}  // namespace

absl::Status Destination::Open(const TargetSpec& spec, absl::string_view sid_last_component,
                               int max_files, bool* too_many_files) {
  *too_many_files = false;
  switch (spec.kind) {
    case TargetSpec::Kind::kDisabled:
      return absl::FailedPreconditionError("tracing disabled");
    case TargetSpec::Kind::kFd:
      if (fcntl(spec.fd, F_GETFD) < 0) return absl::ErrnoToStatus(errno, "fd not open");
      fd_ = spec.fd;
      owns_fd_ = false;
      return absl::OkStatus();
    case TargetSpec::Kind::kFile:
      fd_ = open(spec.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
      if (fd_ < 0) return absl::ErrnoToStatus(errno, absl::StrCat("open ", spec.path));
      owns_fd_ = true;
      path_ = spec.path;
      return absl::OkStatus();
    case TargetSpec::Kind::kDirectory: {
      std::string dir = spec.path;
      if (!absl::EndsWith(dir, "/")) dir += "/";
      if (max_files > 0) {
        const std::string sentinel = dir + "tracewire-discard";
        if (access(sentinel.c_str(), F_OK) == 0) {
          return absl::NotFoundError("too many files: sentinel present");
        }
        if (CountDirectoryEntries(dir) >= max_files) {
          fd_ = open(sentinel.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
          if (fd_ < 0) return absl::ErrnoToStatus(errno, "create sentinel");
          owns_fd_ = true;
          path_ = sentinel;
          *too_many_files = true;
          return absl::OkStatus();
        }
      }
      const std::string base = dir + std::string(sid_last_component);
      for (int attempt = 0; attempt < 10; ++attempt) {
        const std::string path = attempt == 0 ? base : absl::StrCat(base, ".", attempt);
        fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd_ >= 0) {
          owns_fd_ = true;
          path_ = path;
          return absl::OkStatus();
        }
        if (errno != EEXIST) return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
      }
      return absl::AlreadyExistsError(absl::StrCat("could not create a unique file for ", base));
    }
    case TargetSpec::Kind::kUnixSocket: {
      absl::StatusOr<int> fd = absl::UnknownError("unset");
      if (spec.socket_type != TargetSpec::SocketType::kDgram) {
        fd = ConnectUnix(spec.path, SOCK_STREAM);
        if (!fd.ok() && spec.socket_type == TargetSpec::SocketType::kAuto &&
            absl::StrContains(fd.status().message(), "Protocol wrong type")) {
          fd = ConnectUnix(spec.path, SOCK_DGRAM);
          datagram_ = fd.ok();
        }
      } else {
        fd = ConnectUnix(spec.path, SOCK_DGRAM);
        datagram_ = true;
      }
      if (!fd.ok()) return fd.status();
      fd_ = *fd;
      owns_fd_ = true;
      socket_ = true;
      return absl::OkStatus();
    }
  }
  return absl::InternalError("unreachable");
}

bool Destination::Write(const void* bytes, size_t size) {
  if (!ok()) return false;
  const int saved_errno = errno;
  // write() to a pipe or FIFO whose reader is gone raises SIGPIPE, which would kill the
  // traced program: block it on this thread around the write and consume the one the
  // write raised (pthread_sigmask, sigpending and sigtimedwait are async-signal-safe).
  sigset_t pipe_set;
  sigset_t old_mask;
  bool blocked = false;
  bool pending_before = false;
  if (!socket_) {
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    blocked = pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask) == 0;
    sigset_t pending;
    if (blocked && sigpending(&pending) == 0) pending_before = sigismember(&pending, SIGPIPE) == 1;
  }
  bool written = true;
  bool broken_pipe = false;
  const char* p = static_cast<const char*>(bytes);
  while (size > 0) {
    // Sockets use send(MSG_NOSIGNAL) so a vanished reader never raises SIGPIPE.
    const ssize_t n = socket_ ? send(fd_, p, size, MSG_NOSIGNAL) : write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      broken_pipe = errno == EPIPE;
      failed_ = true;
      written = false;
      break;
    }
    p += n;
    size -= n;
  }
  if (blocked) {
    if (broken_pipe && !pending_before) {
      const timespec zero = {0, 0};
      while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  }
  errno = saved_errno;
  return written;
}

}  // namespace tracewire::runtime
