#include "tools/collector/collector.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tools/collector/collector_counters.h"
#include "tools/collector/datagram_receiver.h"
#include "tools/collector/memory_budget.h"
#include "tools/collector/poll_loop.h"
#include "tools/collector/rate_limited_log.h"
#include "tools/collector/stream_server.h"
#include "tools/collector/trace_router.h"
#include "tools/collector/trace_store.h"

namespace tracewire::tools {
namespace {

sockaddr_un UnixAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// The name a listening socket is bound under before it is renamed onto `path`: in the same
// directory (rename stays within one file system), hidden, one per listener process.
std::string StagingPath(const std::string& path) {
  return absl::StrCat(path.substr(0, path.rfind('/') + 1), ".tracewire-listen-", getpid());
}

// Removes a stale socket file at `path`; fails if something listens there or if the path
// is not a socket.
absl::Status ClearSocketPath(const std::string& path, int type) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    return errno == ENOENT ? absl::OkStatus() : absl::ErrnoToStatus(errno, "stat " + path);
  }
  if (!S_ISSOCK(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(path, " exists and is not a socket"));
  }
  const int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  const sockaddr_un addr = UnixAddress(path);
  const bool live = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  if (live) return absl::AlreadyExistsError(absl::StrCat(path, " is in use by another listener"));
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return absl::ErrnoToStatus(errno, "unlink " + path);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseListenAddress(absl::string_view address, CollectorOptions* options) {
  if (!absl::ConsumePrefix(&address, "af_unix:")) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address '", address, "' is not af_unix:[stream:|dgram:]PATH"));
  }
  options->datagram = false;
  if (absl::ConsumePrefix(&address, "dgram:")) {
    options->datagram = true;
  } else {
    absl::ConsumePrefix(&address, "stream:");
  }
  if (!absl::StartsWith(address, "/") || address.size() >= sizeof(sockaddr_un::sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path must be absolute and shorter than ",
                                                   sizeof(sockaddr_un::sun_path), " bytes"));
  }
  options->socket_path = std::string(address);
  return absl::OkStatus();
}

Collector::Collector(const CollectorOptions& options)
    : options_(options), counters_(std::make_unique<CollectorCounters>()) {}

absl::StatusOr<std::unique_ptr<Collector>> Collector::Listen(const CollectorOptions& options) {
  if (!absl::StartsWith(options.socket_path, "/") ||
      options.socket_path.size() >= sizeof(sockaddr_un::sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("socket path must be absolute and shorter than ",
                                                   sizeof(sockaddr_un::sun_path), " bytes"));
  }
  if (options.out_dir.empty()) return absl::InvalidArgumentError("no output directory");
  if (mkdir(options.out_dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return absl::ErrnoToStatus(errno, "mkdir " + options.out_dir);
  }
  struct stat st;
  if (stat(options.out_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(options.out_dir + " is not a directory");
  }
  const int type = options.datagram ? SOCK_DGRAM : SOCK_STREAM;
  if (absl::Status s = ClearSocketPath(options.socket_path, type); !s.ok()) return s;

  std::unique_ptr<Collector> collector(new Collector(options));
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe");
  collector->wake_read_ = pipe_fds[0];
  collector->wake_write_ = pipe_fds[1];

  const int fd = socket(AF_UNIX, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  // The socket is bound under a staging name beside the path, made ready (mode, listen),
  // then renamed onto the path: a client that finds the socket file can connect to it
  // (between bind and listen a connect is refused, and a program starting then would
  // trace to nothing).
  std::string bound_path = StagingPath(options.socket_path);
  if (bound_path.size() >= sizeof(sockaddr_un::sun_path)) bound_path = options.socket_path;
  unlink(bound_path.c_str());  // a staging socket left by a listener that was killed
  const sockaddr_un addr = UnixAddress(bound_path);
  // The socket file is created owner-only (no window in which others could connect), then
  // given the mode asked for.
  const mode_t saved_umask = umask(0177);
  const int bound = bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  const int bind_errno = errno;
  umask(saved_umask);
  if (bound != 0) {
    close(fd);
    return absl::ErrnoToStatus(bind_errno, "bind " + bound_path);
  }
  auto fail = [&](const std::string& what) {
    const int err = errno;
    close(fd);
    unlink(bound_path.c_str());
    return absl::ErrnoToStatus(err, what);
  };
  if (chmod(bound_path.c_str(), options.socket_mode) != 0) return fail("chmod " + bound_path);
  if (options.datagram) {
    const int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) return fail("SO_PASSCRED");
  } else if (listen(fd, 1024) != 0) {
    return fail("listen " + bound_path);
  }
  if (bound_path != options.socket_path &&
      rename(bound_path.c_str(), options.socket_path.c_str()) != 0) {
    return fail(absl::StrCat("rename ", bound_path, " to ", options.socket_path));
  }
  collector->listen_fd_ = fd;  // from here on the destructor removes the socket file
  return collector;
}

Collector::~Collector() {
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    unlink(options_.socket_path.c_str());
  }
  if (wake_read_ >= 0) close(wake_read_);
  if (wake_write_ >= 0) close(wake_write_);
}

void Collector::Stop() {
  const char byte = 1;
  [[maybe_unused]] ssize_t n = write(wake_write_, &byte, 1);
}

CollectorStats Collector::stats() const { return counters_->Snapshot(); }

std::string Collector::FileFor(absl::string_view sid) const {
  return TraceStore(options_.out_dir).FileFor(sid);
}

absl::Status Collector::Run() {
  RateLimitedLog log(options_.log);
  TraceRouter router(options_, *counters_, log);
  MemoryBudget budget(options_.max_total_buffered);
  // The server is destroyed before the router: it converts and writes what is still open.
  if (options_.datagram) {
    DatagramReceiver receiver(listen_fd_, options_, router, budget);
    return RunPollLoop(wake_read_, listen_fd_, receiver);
  }
  StreamServer server(listen_fd_, options_, router, budget);
  return RunPollLoop(wake_read_, listen_fd_, server);
}

}  // namespace tracewire::tools
