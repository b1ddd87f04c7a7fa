#include "tools/collector/collector.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "format/file_header.h"
#include "reader/sid_parts.h"
#include "tools/collector/generation_splitter.h"

namespace tracewire::tools {

struct Collector::Counters {
  std::atomic<uint64_t> connections{0};
  std::atomic<uint64_t> active_connections{0};
  std::atomic<uint64_t> generations_written{0};
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<uint64_t> partial_generations{0};
  std::atomic<uint64_t> invalid_generations{0};
  std::atomic<uint64_t> stream_errors{0};
  std::atomic<uint64_t> write_errors{0};
};

namespace {

constexpr size_t kReadChunk = 64 * 1024;
// A datagram holds one frame: a batch (<= 64 KiB) or an experimental_batch (<= 64 KiB of
// data plus its header).
constexpr size_t kMaxDatagram = 2 * 64 * 1024;
// Reads per connection per poll round, so that one busy client cannot starve the others.
constexpr int kReadsPerRound = 16;

sockaddr_un UnixAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
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
    : options_(options), counters_(std::make_unique<Counters>()) {}

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
  collector->listen_fd_ = fd;
  const sockaddr_un addr = UnixAddress(options.socket_path);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    return absl::ErrnoToStatus(errno, "bind " + options.socket_path);
  }
  if (options.datagram) {
    const int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
      return absl::ErrnoToStatus(errno, "SO_PASSCRED");
    }
  } else if (listen(fd, 1024) != 0) {
    return absl::ErrnoToStatus(errno, "listen " + options.socket_path);
  }
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

CollectorStats Collector::stats() const {
  CollectorStats s;
  s.connections = counters_->connections.load();
  s.active_connections = counters_->active_connections.load();
  s.generations_written = counters_->generations_written.load();
  s.bytes_written = counters_->bytes_written.load();
  s.partial_generations = counters_->partial_generations.load();
  s.invalid_generations = counters_->invalid_generations.load();
  s.stream_errors = counters_->stream_errors.load();
  s.write_errors = counters_->write_errors.load();
  return s;
}

std::string Collector::FileFor(absl::string_view sid) const {
  return absl::StrCat(options_.out_dir, absl::EndsWith(options_.out_dir, "/") ? "" : "/",
                      reader::SidFileName(reader::SidLastComponent(sid)));
}

// The poll loop of one Run() call: the connections (or datagram senders) and their
// splitters.
class Collector::Loop {
 public:
  explicit Loop(Collector& c) : c_(c), header_(format::EncodeFileHeader(format::kFormatVersion)) {}

  ~Loop() {
    for (Conn& conn : conns_) {
      if (conn.splitter->has_partial()) ++c_.counters_->partial_generations;
      close(conn.fd);
      --c_.counters_->active_connections;
    }
    for (auto& [pid, sender] : senders_) {
      if (sender.splitter->has_partial()) ++c_.counters_->partial_generations;
      --c_.counters_->active_connections;
    }
  }

  absl::Status Run() {
    std::vector<pollfd> fds;
    std::vector<char> buffer(std::max(kReadChunk, kMaxDatagram));
    while (true) {
      fds.clear();
      fds.push_back({c_.wake_read_, POLLIN, 0});
      fds.push_back({c_.listen_fd_, POLLIN, 0});
      for (const Conn& conn : conns_) fds.push_back({conn.fd, POLLIN, 0});
      const int timeout_ms =
          c_.options_.datagram
              ? static_cast<int>(std::clamp<int64_t>(
                    absl::ToInt64Milliseconds(c_.options_.dgram_idle) / 2, 10, 1000))
              : -1;
      if (poll(fds.data(), fds.size(), timeout_ms) < 0) {
        if (errno == EINTR) continue;
        return absl::ErrnoToStatus(errno, "poll");
      }
      if (fds[0].revents != 0) return absl::OkStatus();  // Stop()
      if (fds[1].revents & (POLLERR | POLLNVAL)) {
        return absl::InternalError("the listening socket failed");
      }
      // Serve the connections first: accepting appends to conns_.
      std::vector<bool> closed(conns_.size(), false);
      for (size_t i = 0; i < conns_.size(); ++i) {
        if (fds[i + 2].revents != 0) closed[i] = !ServeConnection(conns_[i], buffer);
      }
      size_t kept = 0;
      for (size_t i = 0; i < conns_.size(); ++i) {
        if (closed[i]) {
          close(conns_[i].fd);
          --c_.counters_->active_connections;
        } else {
          conns_[kept++] = std::move(conns_[i]);
        }
      }
      conns_.resize(kept);
      if (fds[1].revents & POLLIN) {
        if (c_.options_.datagram) {
          ReceiveDatagrams(buffer);
        } else {
          Accept();
        }
      }
      if (c_.options_.datagram) EvictIdleSenders();
    }
  }

 private:
  struct Conn {
    int fd = -1;
    std::unique_ptr<GenerationSplitter> splitter;
  };
  struct Sender {
    std::unique_ptr<GenerationSplitter> splitter;
    absl::Time last_seen;
  };

  void Accept() {
    while (true) {
      const int fd = accept4(c_.listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or a client that vanished: nothing to do
      if (conns_.size() >= c_.options_.max_connections) {
        close(fd);
        continue;
      }
      ++c_.counters_->connections;
      ++c_.counters_->active_connections;
      conns_.push_back({fd, std::make_unique<GenerationSplitter>(c_.options_.max_generation_size)});
    }
  }

  // Reads what `conn` has; false once the connection is to be closed.
  bool ServeConnection(Conn& conn, std::vector<char>& buffer) {
    for (int round = 0; round < kReadsPerRound; ++round) {
      const ssize_t n = read(conn.fd, buffer.data(), kReadChunk);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      }
      if (n <= 0) {  // end of the process's stream (or a reset connection)
        if (conn.splitter->has_partial()) ++c_.counters_->partial_generations;
        return false;
      }
      conn.splitter->Append(absl::string_view(buffer.data(), n));
      if (!Drain(*conn.splitter)) return false;
    }
    return true;
  }

  // Stores the complete generations of `splitter`; false if its stream is malformed.
  bool Drain(GenerationSplitter& splitter) {
    while (true) {
      absl::StatusOr<std::optional<SplitGeneration>> gen = splitter.Next();
      if (!gen.ok()) {
        ++c_.counters_->stream_errors;  // what was pending is lost with the stream
        return false;
      }
      if (!gen->has_value()) return true;
      Store(**gen);
    }
  }

  void Store(const SplitGeneration& gen) {
    if (gen.sid.empty()) {
      ++c_.counters_->invalid_generations;
      return;
    }
    const std::string path = c_.FileFor(gen.sid);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) {
      ++c_.counters_->write_errors;
      return;
    }
    // One writev: header and generation land together, as the runtime's file targets do.
    iovec parts[2] = {{const_cast<char*>(header_.data()), header_.size()},
                      {const_cast<char*>(gen.frames.data()), gen.frames.size()}};
    const size_t total = header_.size() + gen.frames.size();
    size_t done = 0;
    bool ok = true;
    while (done < total) {
      ssize_t n;
      if (done == 0) {
        n = writev(fd, parts, 2);
      } else {
        const size_t in_frames = done - std::min(done, header_.size());
        if (done < header_.size()) {
          n = write(fd, header_.data() + done, header_.size() - done);
        } else {
          n = write(fd, gen.frames.data() + in_frames, gen.frames.size() - in_frames);
        }
      }
      if (n < 0) {
        if (errno == EINTR) continue;
        ok = false;
        break;
      }
      done += n;
    }
    close(fd);
    if (!ok) {
      ++c_.counters_->write_errors;
      return;
    }
    ++c_.counters_->generations_written;
    c_.counters_->bytes_written += total;
  }

  void ReceiveDatagrams(std::vector<char>& buffer) {
    while (true) {
      iovec iov = {buffer.data(), buffer.size()};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
      const ssize_t n = recvmsg(c_.listen_fd_, &msg, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR) continue;
        return;  // EAGAIN
      }
      pid_t pid = 0;
      for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm != nullptr; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
          ucred cred;
          memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
          pid = cred.pid;
        }
      }
      auto [it, inserted] = senders_.try_emplace(pid);
      Sender& sender = it->second;
      if (inserted) {
        sender.splitter = std::make_unique<GenerationSplitter>(c_.options_.max_generation_size);
        ++c_.counters_->connections;
        ++c_.counters_->active_connections;
      }
      sender.last_seen = absl::Now();
      bool ok = (msg.msg_flags & MSG_TRUNC) == 0;
      if (ok) {
        sender.splitter->Append(absl::string_view(buffer.data(), n));
        ok = Drain(*sender.splitter);
      } else {
        ++c_.counters_->stream_errors;
      }
      if (!ok) {
        senders_.erase(it);
        --c_.counters_->active_connections;
      }
    }
  }

  void EvictIdleSenders() {
    const absl::Time now = absl::Now();
    for (auto it = senders_.begin(); it != senders_.end();) {
      if (now - it->second.last_seen < c_.options_.dgram_idle) {
        ++it;
        continue;
      }
      if (it->second.splitter->has_partial()) ++c_.counters_->partial_generations;
      --c_.counters_->active_connections;
      senders_.erase(it++);
    }
  }

  Collector& c_;
  const std::string header_;
  std::vector<Conn> conns_;
  absl::flat_hash_map<pid_t, Sender> senders_;
};

absl::Status Collector::Run() {
  Loop loop(*this);
  return loop.Run();
}

}  // namespace tracewire::tools
