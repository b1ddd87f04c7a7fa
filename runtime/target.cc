#include "runtime/target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "runtime/published_file.h"
#include "runtime/startup_path.h"
#include "runtime/text.h"

namespace tracewire::runtime {

TRACEWIRE_STARTUP_PATH std::optional<TargetSpec> ParseTarget(absl::string_view value,
                                                             std::string* error) {
  TargetSpec spec;
  const std::string lower = AsciiStrToLower(value);
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
  if (StartsWith(value, "af_unix:")) {
    absl::string_view rest = Substr(value, 8);
    spec.kind = TargetSpec::Kind::kUnixSocket;
    if (StartsWith(rest, "stream:")) {
      spec.socket_type = TargetSpec::SocketType::kStream;
      rest.remove_prefix(7);
    } else if (StartsWith(rest, "dgram:")) {
      spec.socket_type = TargetSpec::SocketType::kDgram;
      rest.remove_prefix(6);
    }
    if (!StartsWith(rest, "/") || rest.size() >= sizeof(sockaddr_un::sun_path)) {
      if (error != nullptr) {
        *error = Cat({"socket path must be absolute and shorter than ",
                      Dec(sizeof(sockaddr_un::sun_path)), " bytes"});
      }
      return std::nullopt;
    }
    spec.path = std::string(rest);
    return spec;
  }
  if (StartsWith(value, "/")) {
    struct stat st;
    spec.path = std::string(value);
    spec.kind = stat(spec.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)
                    ? TargetSpec::Kind::kDirectory
                    : TargetSpec::Kind::kFile;
    return spec;
  }
  if (error != nullptr) *error = "unknown value";
  return std::nullopt;
}

bool IsTerminalTarget(const TargetSpec& spec) {
  return spec.kind == TargetSpec::Kind::kFd && isatty(spec.fd) == 1;
}

std::string TerminalTargetWarning(absl::string_view name, absl::string_view value) {
  return Cat({"warning: tracewire: ", name, "=", value,
              " is a terminal; binary trace data is not written there and tracing is off (run "
              "`tracewire run COMMAND` to see the events live, or set ",
              name, " to a file or directory)\n"});
}

namespace {

constexpr uint64_t kNanosPerMs = 1'000'000;

// A failure for errno value `err`: "<what>: <strerror>".
OpenResult ErrnoResult(int err, absl::string_view what) {
  return OpenResult::Failed(Cat({what, ": ", strerror(err)}));
}

uint64_t MonotonicNow() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec;
}

void SleepMs(int ms) {
  timespec pause = {0, ms * static_cast<long>(kNanosPerMs)};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

// Moves `fd` to 3 or above, so that a program that closed stdin, stdout or stderr never
// finds the trace behind its own 0, 1 or 2 later. Returns the new fd (or -1).
int AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int saved = errno;
  close(fd);
  errno = saved;
  return moved;
}

int CountDirectoryEntries(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return 0;
  int count = 0;
  while (readdir(d) != nullptr) ++count;
  closedir(d);
  return count;
}

// Connects a non-blocking socket of `type` to `path`, retrying while a stream listener's
// backlog is full until `deadline`. Returns the fd, or -errno.
int ConnectUnix(const std::string& path, int type, uint64_t deadline) {
  const int fd = AboveStdio(socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (fd < 0) return -errno;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  for (;;) {
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) return fd;
    const int err = errno;
    if (err == EINTR) continue;
    if (err == EAGAIN && MonotonicNow() < deadline) {  // the listener's backlog is full
      SleepMs(10);
      continue;
    }
    if (err == EINPROGRESS) {
      const uint64_t now = MonotonicNow();
      pollfd p = {fd, POLLOUT, 0};
      const int wait_ms = now < deadline ? static_cast<int>((deadline - now) / kNanosPerMs) : 0;
      int so_error = ETIMEDOUT;
      socklen_t len = sizeof(so_error);
      if (poll(&p, 1, wait_ms) == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
      if (so_error == 0) return fd;
      close(fd);
      return -so_error;
    }
    close(fd);
    return -(err == EAGAIN ? ETIMEDOUT : err);
  }
}

// Async-signal-safe string building for warnings.
struct MessageBuilder {
  char* out;
  size_t capacity;
  size_t length = 0;
  void Add(const char* text) {
    while (*text != '\0' && length + 1 < capacity) out[length++] = *text++;
    out[length] = '\0';
  }
  void AddNumber(uint64_t value) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    char text[24];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = '\0';
    Add(text);
  }
};

// The signals a write() to a pipe or a file over its size limit raises at the writer.
void WriteSignals(sigset_t* set) {
  sigemptyset(set);
  sigaddset(set, SIGPIPE);
  sigaddset(set, SIGXFSZ);
}

}  // namespace

Destination::~Destination() { Close(); }

void Destination::Close() {
  if (owns_fd_ && fd_ >= 0) close(fd_);
  fd_ = -1;
  owns_fd_ = false;
}

OpenResult Destination::Adopt(bool owns, absl::string_view label) {
  owns_fd_ = owns;
  MessageBuilder name{label_, sizeof(label_)};
  name.Add(std::string(label).c_str());
  struct stat st;
  if (fstat(fd_, &st) != 0) return ErrnoResult(errno, "fstat");
  device_ = st.st_dev;
  inode_ = st.st_ino;
  Mode mode = Mode::kSharedNoWait;  // never set O_NONBLOCK on the program's own description
  if (S_ISREG(st.st_mode)) {
    mode = Mode::kPlain;
  } else if (S_ISSOCK(st.st_mode)) {
    mode = Mode::kSocket;
  } else if (owns) {
    mode = Mode::kNonBlocking;  // opened here with O_NONBLOCK
  }
  mode_.store(mode, std::memory_order_relaxed);  // relaxed: see failed_
  return OpenResult::Ok();
}

OpenResult Destination::Open(const TargetSpec& spec, absl::string_view sid_last_component,
                             int max_files, bool* too_many_files, int timeout_ms,
                             absl::string_view file_header) {
  *too_many_files = false;
  if (spec.kind != TargetSpec::Kind::kDirectory) file_per_dump_ = false;
  timeout_ms_ = timeout_ms > 0 ? timeout_ms : kDefaultTimeoutMs;
  const uint64_t deadline = MonotonicNow() + static_cast<uint64_t>(timeout_ms_) * kNanosPerMs;
  switch (spec.kind) {
    case TargetSpec::Kind::kDisabled:
      return OpenResult::Failed("tracing disabled");
    case TargetSpec::Kind::kFd: {
      if (fcntl(spec.fd, F_GETFD) < 0) return ErrnoResult(errno, "fd not open");
      fd_ = spec.fd;
      OpenResult status = Adopt(false, Cat({"fd ", Dec(spec.fd)}));
      if (!status.ok()) fd_ = -1;
      return status;
    }
    case TargetSpec::Kind::kFile: {
      // A file that does not exist yet appears under its name holding the file header, as
      // in a directory (published_file.h): never empty, whenever the process is killed.
      if (OpenResult created = OpenResult::Ok();
          CreateSharedFile(spec.path, file_header, &created)) {
        return created;
      }
      // The file exists (or cannot be created that way: the open below says why).
      // O_NONBLOCK: a FIFO without a reader fails with ENXIO instead of blocking; retried
      // until the deadline. Regular files ignore the flag.
      const int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
      for (;;) {
        fd_ = AboveStdio(open(spec.path.c_str(), flags, 0666));
        if (fd_ >= 0 || errno == EINTR) {
          if (fd_ >= 0) break;
          continue;
        }
        if (errno != ENXIO) return ErrnoResult(errno, Cat({"open ", spec.path}));
        if (MonotonicNow() >= deadline) {
          return OpenResult::Failed(
              Cat({"no reader opened the FIFO '", spec.path, "' within ", Dec(timeout_ms_), " ms"}),
              /*timed_out=*/true);
        }
        SleepMs(10);
      }
      path_ = spec.path;
      return Adopt(true, Cat({"'", spec.path, "'"}));
    }
    case TargetSpec::Kind::kDirectory: {
      std::string dir = spec.path;
      if (!EndsWith(dir, "/")) dir += "/";
      if (file_per_dump_) {
        const std::string prefix = dir + std::string(sid_last_component);
        if (prefix.size() + 32 > sizeof(dump_prefix_)) {
          return OpenResult::Failed("directory path too long");
        }
        memcpy(dump_prefix_, prefix.c_str(), prefix.size() + 1);
        path_ = dir;
        return OpenResult::Ok();
      }
      if (max_files > 0) {
        const std::string sentinel = dir + "tracewire-discard";
        struct stat st;
        if (lstat(sentinel.c_str(), &st) == 0) {
          return OpenResult::Failed("too many files: sentinel present");
        }
        if (CountDirectoryEntries(dir) >= max_files) {
          UnnamedFile file;
          if (!CreateUnnamedFile(dir.c_str(), file_header.data(), file_header.size(), &file)) {
            return ErrnoResult(errno, "create sentinel");
          }
          if (!NameFile(&file, sentinel.c_str())) {
            const int err = errno;
            DiscardUnnamedFile(&file);
            return ErrnoResult(err, "create sentinel");
          }
          *too_many_files = true;
          return AdoptCreated(file.fd, sentinel, file_header.size());
        }
      }
      // The file appears under its name with its file header in it (published_file.h). Its
      // name never replaces or follows an entry already there: a name planted in the
      // directory, symlink or not, is skipped, never written through.
      UnnamedFile file;
      if (!CreateUnnamedFile(dir.c_str(), file_header.data(), file_header.size(), &file)) {
        return ErrnoResult(errno, Cat({"create a file in ", dir}));
      }
      const std::string base = dir + std::string(sid_last_component);
      for (int attempt = 0; attempt < 10; ++attempt) {
        const std::string path = attempt == 0 ? base : Cat({base, ".", Dec(attempt)});
        if (NameFile(&file, path.c_str())) {
          return AdoptCreated(file.fd, path, file_header.size());
        }
        if (errno != EEXIST) {
          const int err = errno;
          DiscardUnnamedFile(&file);
          return ErrnoResult(err, Cat({"open ", path}));
        }
      }
      DiscardUnnamedFile(&file);
      return OpenResult::Failed(Cat({"could not create a unique file for ", base}));
    }
    case TargetSpec::Kind::kUnixSocket: {
      int fd;
      if (spec.socket_type != TargetSpec::SocketType::kDgram) {
        fd = ConnectUnix(spec.path, SOCK_STREAM, deadline);
        if (fd == -EPROTOTYPE && spec.socket_type == TargetSpec::SocketType::kAuto) {
          fd = ConnectUnix(spec.path, SOCK_DGRAM, deadline);
          datagram_ = fd >= 0;
        }
      } else {
        fd = ConnectUnix(spec.path, SOCK_DGRAM, deadline);
        datagram_ = true;
      }
      if (fd == -ETIMEDOUT) {
        return OpenResult::Failed(
            Cat({"the listener on '", spec.path, "' accepted no connection within ",
                 Dec(timeout_ms_), " ms"}),
            /*timed_out=*/true);
      }
      if (fd < 0) return ErrnoResult(-fd, Cat({"connect ", spec.path}));
      fd_ = fd;
      return Adopt(true, Cat({"af_unix:", spec.path}));
    }
  }
  return OpenResult::Failed("unreachable");
}

bool Destination::OpenDumpFile(uint64_t number, const void* file_header, size_t file_header_size) {
  CloseDumpFile();
  char path[sizeof(dump_prefix_) + 32];
  MessageBuilder name{path, sizeof(path)};
  name.Add(dump_prefix_);
  name.Add(".flight-");
  name.AddNumber(number);
  // Created complete with its file header (published_file.h).
  UnnamedFile file;
  if (!CreateUnnamedFile(path_.c_str(), file_header, file_header_size, &file)) return false;
  if (!NameFile(&file, path)) {
    DiscardUnnamedFile(&file);
    return false;
  }
  const int fd = AboveStdio(file.fd);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return false;
  }
  device_ = st.st_dev;
  inode_ = st.st_ino;
  mode_.store(Mode::kPlain, std::memory_order_relaxed);  // relaxed: see failed_
  exclusive_ = true;
  owns_fd_ = true;
  written_.store(file_header_size, std::memory_order_relaxed);              // relaxed: see failed_
  generation_start_.store(file_header_size, std::memory_order_relaxed);     // relaxed: see failed_
  header_in_place_.store(file_header_size > 0, std::memory_order_relaxed);  // relaxed: see failed_
  failed_.store(false, std::memory_order_relaxed);                          // relaxed: see failed_
  MessageBuilder label{label_, sizeof(label_)};
  label.Add("'");
  label.Add(path);
  label.Add("'");
  fd_ = fd;
  return true;
}

void Destination::CloseDumpFile() {
  if (file_per_dump_) Close();
}

OpenResult Destination::AdoptCreated(int fd, const std::string& path, size_t header_size) {
  fd_ = AboveStdio(fd);
  if (fd_ < 0) return ErrnoResult(errno, Cat({"open ", path}));
  path_ = path;
  exclusive_ = true;
  written_.store(header_size, std::memory_order_relaxed);              // relaxed: see failed_
  generation_start_.store(header_size, std::memory_order_relaxed);     // relaxed: see failed_
  header_in_place_.store(header_size > 0, std::memory_order_relaxed);  // relaxed: see failed_
  return Adopt(true, Cat({"'", path, "'"}));
}

bool Destination::CreateSharedFile(const std::string& path, absl::string_view file_header,
                                   OpenResult* result) {
  struct stat st;
  if (file_header.empty() || lstat(path.c_str(), &st) == 0 || errno != ENOENT) return false;
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  UnnamedFile file;
  if (!CreateUnnamedFile(dir.c_str(), file_header.data(), file_header.size(), &file)) return false;
  if (!NameFile(&file, path.c_str())) {
    // Another process created it meanwhile (EEXIST): append to it like to any file.
    DiscardUnnamedFile(&file);
    return false;
  }
  // Other processes may append to it too (unlike a directory's file, it is not this
  // process's alone): every write goes to its end.
  const int flags = fcntl(file.fd, F_GETFL);
  if (flags < 0 || fcntl(file.fd, F_SETFL, flags | O_APPEND) != 0) {
    *result = ErrnoResult(errno, Cat({"open ", path}));
    close(file.fd);
    return true;
  }
  fd_ = AboveStdio(file.fd);
  if (fd_ < 0) {
    *result = ErrnoResult(errno, Cat({"open ", path}));
    return true;
  }
  path_ = path;
  header_in_place_.store(true, std::memory_order_relaxed);  // relaxed: see failed_
  *result = Adopt(true, Cat({"'", path, "'"}));
  return true;
}

bool Destination::TakeHeaderInPlace() {
  return header_in_place_.exchange(false, std::memory_order_relaxed);  // relaxed: see failed_
}

void Destination::BeginGeneration() {
  // relaxed: see Destination::failed_.
  generation_start_.store(written_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void Destination::Fail(const char* what, int err) {
  failed_.store(true, std::memory_order_relaxed);  // relaxed: see failed_
  // A file of our own ends with the last whole generation.
  if (exclusive_) {
    // relaxed: see Destination::failed_.
    while (ftruncate(fd_, generation_start_.load(std::memory_order_relaxed)) != 0 &&
           errno == EINTR) {
    }
  }
  if (warned_.exchange(true, std::memory_order_relaxed)) return;  // relaxed: a one-shot flag
  char text[512];
  MessageBuilder message{text, sizeof(text)};
  message.Add("warning: tracewire: ");
  message.Add(what);
  message.Add(" ");
  message.Add(label_);
  if (err == ETIMEDOUT) {
    message.Add(": no progress for ");
    message.AddNumber(timeout_ms_);
    message.Add(" ms");
  } else if (err != 0) {
    message.Add(": ");
    const char* name = strerrorname_np(err);
    message.Add(name != nullptr ? name : "error");
  }
  message.Add("; tracing is off\n");
  // Never wait for stderr: it may be the very destination that stopped draining.
  pollfd p = {2, POLLOUT, 0};
  if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) != 0) {
    const ssize_t ignored = write(2, text, message.length);
    (void)ignored;
  }
}

ssize_t Destination::WriteOnce(const iovec* pieces, int count) {
  switch (mode_.load(std::memory_order_relaxed)) {  // relaxed: see failed_
    case Mode::kPlain:
    case Mode::kNonBlocking:
      return writev(fd_, pieces, count);
    case Mode::kSocket: {
      msghdr message{};
      message.msg_iov = const_cast<iovec*>(pieces);
      message.msg_iovlen = count;
      return sendmsg(fd_, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    case Mode::kSharedNoWait: {
      const ssize_t n = pwritev2(fd_, pieces, count, -1, RWF_NOWAIT);
      if (n >= 0 || (errno != EOPNOTSUPP && errno != EINVAL && errno != ENOSYS)) return n;
      mode_.store(Mode::kSharedPolled, std::memory_order_relaxed);  // no RWF_NOWAIT here
      [[fallthrough]];
    }
    case Mode::kSharedPolled: {
      // After POLLOUT, a write of at most PIPE_BUF bytes to a pipe does not wait.
      pollfd p = {fd_, POLLOUT, 0};
      const int ready = poll(&p, 1, 0);
      if (ready < 0) return -1;
      if (ready == 0) {
        errno = EAGAIN;
        return -1;
      }
      return write(fd_, pieces[0].iov_base, std::min<size_t>(pieces[0].iov_len, PIPE_BUF));
    }
  }
  return -1;
}

bool Destination::WriteV(const iovec* pieces, int count) {
  if (!ok()) return false;
  const uint64_t timeout = static_cast<uint64_t>(timeout_ms_) * kNanosPerMs;
  uint64_t last_progress = MonotonicNow();
  const int saved_errno = errno;
  // The program may have closed the fd, or closed it and opened something else under the
  // same number: never write into the program's own files.
  struct stat st;
  if (fstat(fd_, &st) != 0 || st.st_dev != device_ || st.st_ino != inode_) {
    Fail("the trace's file descriptor was closed or reused; could not write to", 0);
    errno = saved_errno;
    return false;
  }
  // write() to a pipe whose reader is gone raises SIGPIPE, and past RLIMIT_FSIZE SIGXFSZ;
  // either would kill the program: block them on this thread around the write and consume
  // the ones the write raised (pthread_sigmask, sigpending and sigtimedwait are
  // async-signal-safe).
  sigset_t write_signals;
  sigset_t old_mask;
  sigset_t pending_before;
  bool blocked = false;
  if (mode_.load(std::memory_order_relaxed) != Mode::kSocket) {  // relaxed: see failed_
    WriteSignals(&write_signals);
    blocked = pthread_sigmask(SIG_BLOCK, &write_signals, &old_mask) == 0;
    if (blocked && sigpending(&pending_before) != 0) sigemptyset(&pending_before);
  }
  // The pieces left, as a window of at most kWindow iovecs (partial writes advance it).
  constexpr int kWindow = 64;
  iovec window[kWindow];
  int index = 0;      // the first piece not completely written
  size_t offset = 0;  // bytes of pieces[index] already written
  bool written = true;
  while (index < count) {
    int n = 0;
    size_t window_bytes = 0;
    for (int i = index; i < count && n < kWindow; ++i, ++n) {
      window[n] = pieces[i];
      if (i == index) {
        window[n].iov_base = static_cast<char*>(window[n].iov_base) + offset;
        window[n].iov_len -= offset;
      }
      window_bytes += window[n].iov_len;
    }
    const ssize_t done = window_bytes == 0 ? 0 : WriteOnce(window, n);
    if (done < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        const uint64_t now = MonotonicNow();
        const uint64_t deadline = last_progress + timeout;
        if (now >= deadline) {
          Fail("timed out writing the trace to", ETIMEDOUT);
          written = false;
          break;
        }
        pollfd p = {fd_, POLLOUT, 0};
        const uint64_t left_ms = (deadline - now + kNanosPerMs - 1) / kNanosPerMs;
        // A shared fd without RWF_NOWAIT polls in short steps (another writer may refill it).
        // relaxed: see Destination::failed_.
        const bool polled = mode_.load(std::memory_order_relaxed) == Mode::kSharedPolled;
        const uint64_t wait_ms = std::min<uint64_t>(left_ms, polled ? 10 : INT_MAX);
        poll(&p, 1, static_cast<int>(wait_ms));
        continue;
      }
      Fail("could not write the trace to", errno);
      written = false;
      break;
    }
    if (done == 0 && window_bytes != 0) {  // no error and no progress: give up
      Fail("could not write the trace to", EIO);
      written = false;
      break;
    }
    last_progress = MonotonicNow();
    if (exclusive_) written_.fetch_add(done, std::memory_order_relaxed);  // relaxed: see failed_
    size_t left = static_cast<size_t>(done);
    while (index < count && left >= pieces[index].iov_len - offset) {
      left -= pieces[index].iov_len - offset;
      offset = 0;
      ++index;
    }
    offset += left;
    if (datagram_ && index < count) {
      Fail("could not send a whole datagram to", EMSGSIZE);
      written = false;
      break;
    }
  }
  if (blocked) {
    sigset_t pending;
    if (sigpending(&pending) == 0) {
      for (int signo : {SIGPIPE, SIGXFSZ}) {
        if (sigismember(&pending, signo) == 1 && sigismember(&pending_before, signo) != 1) {
          sigset_t one;
          sigemptyset(&one);
          sigaddset(&one, signo);
          const timespec zero = {0, 0};
          while (sigtimedwait(&one, nullptr, &zero) < 0 && errno == EINTR) {
          }
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  }
  errno = saved_errno;
  return written;
}

bool Destination::Write(const void* bytes, size_t size) {
  iovec piece = {const_cast<void*>(bytes), size};
  return WriteV(&piece, 1);
}

}  // namespace tracewire::runtime
