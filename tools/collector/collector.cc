#include "tools/collector/collector.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "format/file_header.h"
#include "tools/collector/generation_splitter.h"
#include "tools/collector/trace2_event_stream.h"
#include "tools/collector/trace_store.h"

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
  std::atomic<uint64_t> git_connections{0};
  std::atomic<uint64_t> git_processes{0};
  std::atomic<uint64_t> git_invalid{0};
  std::atomic<uint64_t> unsafe_files{0};
  std::atomic<uint64_t> idle_timeouts{0};
  std::atomic<uint64_t> memory_limit_drops{0};
  std::atomic<uint64_t> refused_connections{0};
  std::atomic<uint64_t> accept_pauses{0};
};

namespace {

constexpr size_t kReadChunk = 64 * 1024;
// A datagram holds one frame: a batch (<= 64 KiB) or an experimental_batch (<= 64 KiB of
// data plus its header); or one git EVENT line.
constexpr size_t kMaxDatagram = 2 * 64 * 1024;
// Reads per connection per poll round, so that one busy client cannot starve the others.
constexpr int kReadsPerRound = 16;
// Log lines per window, then one line says how many were left out.
constexpr int kLogBurst = 20;
constexpr absl::Duration kLogWindow = absl::Seconds(10);

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

// The first bytes of a stream, for messages about what a client sent.
std::string Preview(absl::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes.substr(0, 16)) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  return out;
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
  const sockaddr_un addr = UnixAddress(options.socket_path);
  // The socket file is created owner-only (no window in which others could connect), then
  // given the mode asked for.
  const mode_t saved_umask = umask(0177);
  const int bound = bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  const int bind_errno = errno;
  umask(saved_umask);
  if (bound != 0) {
    close(fd);
    return absl::ErrnoToStatus(bind_errno, "bind " + options.socket_path);
  }
  collector->listen_fd_ = fd;  // from here on the destructor removes the socket file
  if (chmod(options.socket_path.c_str(), options.socket_mode) != 0) {
    return absl::ErrnoToStatus(errno, "chmod " + options.socket_path);
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
  const Counters& c = *counters_;
  CollectorStats s;
  s.connections = c.connections.load();
  s.active_connections = c.active_connections.load();
  s.generations_written = c.generations_written.load();
  s.bytes_written = c.bytes_written.load();
  s.partial_generations = c.partial_generations.load();
  s.invalid_generations = c.invalid_generations.load();
  s.stream_errors = c.stream_errors.load();
  s.write_errors = c.write_errors.load();
  s.git_connections = c.git_connections.load();
  s.git_processes = c.git_processes.load();
  s.git_invalid = c.git_invalid.load();
  s.unsafe_files = c.unsafe_files.load();
  s.idle_timeouts = c.idle_timeouts.load();
  s.memory_limit_drops = c.memory_limit_drops.load();
  s.refused_connections = c.refused_connections.load();
  s.accept_pauses = c.accept_pauses.load();
  return s;
}

std::string Collector::FileFor(absl::string_view sid) const {
  return TraceStore(options_.out_dir).FileFor(sid);
}

// The poll loop of one Run() call: the connections (or datagram senders) and their
// splitters or git line streams.
class Collector::Loop {
 public:
  explicit Loop(Collector& c)
      : c_(c),
        o_(c.options_),
        n_(*c.counters_),
        store_(o_.out_dir),
        header_(format::EncodeFileHeader(format::kFormatVersion)) {}

  ~Loop() {
    // Stopped: the git processes still sending are converted with what they sent.
    for (Conn& conn : conns_) Close(conn, /*convert=*/true);
    for (auto& [pid, sender] : senders_) EndSender(sender);
    if (git_datagrams_ != nullptr) git_datagrams_->EndAll();
    HandleGitCompleted(git_datagrams_.get());
  }

  absl::Status Run() {
    std::vector<pollfd> fds;
    std::vector<char> buffer(std::max(kReadChunk, kMaxDatagram));
    while (true) {
      const absl::Time now = absl::Now();
      const bool accepting = now >= accept_resume_;
      fds.clear();
      fds.push_back({c_.wake_read_, POLLIN, 0});
      fds.push_back({accepting ? c_.listen_fd_ : -1, POLLIN, 0});
      for (const Conn& conn : conns_) fds.push_back({conn.fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), PollTimeoutMs(now)) < 0) {
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
      RemoveClosed(closed);
      if (fds[1].revents & POLLIN) {
        if (o_.datagram) {
          ReceiveDatagrams(buffer);
        } else {
          Accept();
        }
      }
      ExpireIdle();
    }
  }

 private:
  // A stream connection: undecided until its first byte, then the runtime's stream or
  // git's EVENT lines.
  struct Conn {
    int fd = -1;
    std::unique_ptr<GenerationSplitter> splitter;  // the runtime's stream
    std::unique_ptr<Trace2EventStream> git;        // git's EVENT lines
    absl::Time last_activity;
    size_t accounted = 0;  // bytes of it counted in total_buffered_
    // Sids with generations written since their process was last reported complete.
    absl::flat_hash_set<std::string> unreported;
    // Why it is closed, if it was dropped: its loss is counted already (a malformed stream,
    // a memory limit); the lines of git processes over a limit are not converted.
    bool dropped = false;
    bool over_limit = false;
  };
  // A runtime datagram sender (by pid).
  struct Sender {
    std::unique_ptr<GenerationSplitter> splitter;
    absl::Time last_seen;
    size_t accounted = 0;
    absl::flat_hash_set<std::string> unreported;
  };

  void Log(const std::string& line) {
    if (!o_.log) return;
    const absl::Time now = absl::Now();
    if (now - log_window_start_ >= kLogWindow) {
      if (log_suppressed_ > 0) {
        o_.log(absl::StrCat(log_suppressed_, " more messages were left out"));
      }
      log_window_start_ = now;
      log_count_ = 0;
      log_suppressed_ = 0;
    }
    if (log_count_ < kLogBurst) {
      ++log_count_;
      o_.log(line);
    } else {
      ++log_suppressed_;
    }
  }

  int PollTimeoutMs(absl::Time now) const {
    absl::Time next = absl::InfiniteFuture();
    if (now < accept_resume_) next = accept_resume_;
    if (o_.idle_timeout > absl::ZeroDuration()) {
      for (const Conn& conn : conns_) next = std::min(next, conn.last_activity + o_.idle_timeout);
    }
    if (o_.datagram)
      next = std::min(
          next, now + std::clamp(o_.dgram_idle / 2, absl::Milliseconds(10), absl::Seconds(1)));
    if (next == absl::InfiniteFuture()) return -1;
    return static_cast<int>(
        std::clamp<int64_t>(absl::ToInt64Milliseconds(next - now) + 1, 0, 60000));
  }

  // Moves `unit`'s share of total_buffered_ to `bytes`; false if that puts the total over
  // max_total_buffered.
  bool Account(size_t& accounted, size_t bytes) {
    total_buffered_ = total_buffered_ - accounted + bytes;
    accounted = bytes;
    return total_buffered_ <= o_.max_total_buffered;
  }

  void MemoryLimitHit(const std::string& what) {
    ++n_.memory_limit_drops;
    Log(absl::StrCat(what, " dropped: over the memory limit (", o_.max_generation_size,
                     " bytes per connection, ", o_.max_total_buffered, " in all)"));
  }

  void Accept() {
    while (true) {
      const int fd = accept4(c_.listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          // Out of descriptors: the pending connection stays queued and the socket readable;
          // rest instead of spinning on it.
          ++n_.accept_pauses;
          accept_resume_ = absl::Now() + o_.accept_pause;
          Log(absl::StrCat("accept: ", strerror(errno), "; not accepting for ",
                           absl::FormatDuration(o_.accept_pause), " (", conns_.size(),
                           " connections open)"));
        }
        return;  // EAGAIN, or a client that vanished: nothing to do
      }
      if (conns_.size() >= o_.max_connections) {
        close(fd);
        ++n_.refused_connections;
        Log(absl::StrCat("connection refused: ", o_.max_connections, " connections are open"));
        continue;
      }
      ++n_.connections;
      ++n_.active_connections;
      Conn& conn = conns_.emplace_back();
      conn.fd = fd;
      conn.last_activity = absl::Now();
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
      if (n <= 0) return false;  // the end of the process's stream (or a reset connection)
      conn.last_activity = absl::Now();
      const absl::string_view bytes(buffer.data(), static_cast<size_t>(n));
      if (conn.splitter == nullptr && conn.git == nullptr) {
        if (bytes[0] == '{') {
          ++n_.git_connections;
          Trace2EventStream::Limits limits;
          limits.max_buffered = o_.max_generation_size;
          limits.max_processes = o_.max_connections;
          conn.git = std::make_unique<Trace2EventStream>(limits);
        } else {
          conn.splitter = std::make_unique<GenerationSplitter>(o_.max_generation_size);
        }
      }
      if (conn.git != nullptr) {
        const absl::Status status = conn.git->AppendStream(bytes, conn.last_activity);
        HandleGitCompleted(conn.git.get());
        if (!status.ok()) {
          conn.dropped = true;
          if (absl::IsResourceExhausted(status)) {
            conn.over_limit = true;
            MemoryLimitHit(absl::StrCat("a git EVENT connection (", status.message(), ")"));
          } else {
            ++n_.stream_errors;
            Log(absl::StrCat("a git EVENT connection dropped: ", status.message()));
          }
          return false;
        }
        if (!Account(conn.accounted, conn.git->buffered_bytes())) {
          conn.dropped = conn.over_limit = true;
          MemoryLimitHit("a git EVENT connection");
          return false;
        }
        continue;
      }
      conn.splitter->Append(bytes);
      if (!Drain(*conn.splitter, conn.unreported, bytes)) {
        conn.dropped = true;
        return false;
      }
      if (!Account(conn.accounted, conn.splitter->buffered_bytes())) {
        conn.dropped = true;
        MemoryLimitHit("a connection");
        return false;
      }
    }
    return true;
  }

  // Stores the complete generations of `splitter`; false if its stream is malformed.
  bool Drain(GenerationSplitter& splitter, absl::flat_hash_set<std::string>& unreported,
             absl::string_view received) {
    while (true) {
      absl::StatusOr<std::optional<SplitGeneration>> gen = splitter.Next();
      if (!gen.ok()) {
        // What was pending is lost with the stream.
        if (absl::IsResourceExhausted(gen.status())) {
          MemoryLimitHit(absl::StrCat("a stream (", gen.status().message(), ")"));
        } else {
          ++n_.stream_errors;
          Log(absl::StrCat("a stream dropped: ", gen.status().message(), " (received \"",
                           Preview(received),
                           "\"; listen takes the tracewire runtime's "
                           "af_unix targets and git's GIT_TRACE2_EVENT=af_unix:…)"));
        }
        return false;
      }
      if (!gen->has_value()) return true;
      Store(**gen, unreported);
    }
  }

  void Store(const SplitGeneration& gen, absl::flat_hash_set<std::string>& unreported) {
    if (gen.sid.empty()) {
      ++n_.invalid_generations;
      return;
    }
    if (!Write(gen.sid, header_, gen.frames)) return;
    ++n_.generations_written;
    if (!o_.on_process_complete) return;
    const absl::StatusOr<bool> ends = GenerationEndsProcess(gen.frames, o_.max_generation_size);
    if (ends.ok() && *ends) {
      unreported.erase(gen.sid);
      Complete(gen.sid);
    } else {
      unreported.insert(gen.sid);
    }
  }

  // Appends to the file of `sid`; false (counted and logged) if it could not.
  bool Write(const std::string& sid, absl::string_view first, absl::string_view second) {
    const absl::Status status = store_.Append(sid, first, second);
    if (!status.ok()) {
      if (absl::IsFailedPrecondition(status)) {
        ++n_.unsafe_files;
      } else {
        ++n_.write_errors;
      }
      Log(std::string(status.message()));
      return false;
    }
    n_.bytes_written += first.size() + second.size();
    return true;
  }

  void Complete(const std::string& sid) {
    if (o_.on_process_complete) o_.on_process_complete({sid, store_.FileFor(sid)});
  }

  void ReportAll(absl::flat_hash_set<std::string>& unreported) {
    for (const std::string& sid : unreported) Complete(sid);
    unreported.clear();
  }

  void HandleGitCompleted(Trace2EventStream* stream) {
    if (stream == nullptr) return;
    for (Trace2EventStream::Completed& done : stream->TakeCompleted()) {
      if (!done.trace.ok()) {
        ++n_.git_invalid;
        Log(absl::StrCat("git process ", done.sid, " (", done.lines,
                         " EVENT lines) not converted: ", done.trace.status().message()));
        continue;
      }
      if (!Write(done.sid, *done.trace, "")) continue;
      ++n_.git_processes;
      Complete(done.sid);
    }
  }

  // Closes `conn`: the rest of a git connection is converted (unless `convert` is false),
  // an unfinished runtime generation is lost, and its processes are reported complete.
  void Close(Conn& conn, bool convert) {
    if (conn.git != nullptr) {
      if (convert && !conn.over_limit) {
        conn.git->EndAll();
        HandleGitCompleted(conn.git.get());
      } else if (conn.git->has_partial() && !conn.dropped) {
        ++n_.partial_generations;
      }
    }
    if (conn.splitter != nullptr && conn.splitter->has_partial() && !conn.dropped) {
      ++n_.partial_generations;
    }
    ReportAll(conn.unreported);
    Account(conn.accounted, 0);
    close(conn.fd);
    --n_.active_connections;
  }

  void RemoveClosed(const std::vector<bool>& closed) {
    size_t kept = 0;
    for (size_t i = 0; i < conns_.size(); ++i) {
      if (i < closed.size() && closed[i]) {
        Close(conns_[i], /*convert=*/true);
      } else {
        if (kept != i) conns_[kept] = std::move(conns_[i]);
        ++kept;
      }
    }
    conns_.resize(kept);
  }

  void ExpireIdle() {
    const absl::Time now = absl::Now();
    if (o_.idle_timeout > absl::ZeroDuration()) {
      std::vector<bool> idle(conns_.size(), false);
      bool any = false;
      for (size_t i = 0; i < conns_.size(); ++i) {
        if (now - conns_[i].last_activity >= o_.idle_timeout) {
          idle[i] = any = true;
          ++n_.idle_timeouts;
        }
      }
      if (any) {
        Log(absl::StrCat(std::count(idle.begin(), idle.end(), true),
                         " connections closed: silent for ",
                         absl::FormatDuration(o_.idle_timeout)));
        RemoveClosed(idle);
      }
    }
    if (o_.datagram) EvictIdleSenders(now);
  }

  // Ends a datagram sender; a dropped one's loss is counted already.
  void EndSender(Sender& sender, bool dropped = false) {
    if (sender.splitter->has_partial() && !dropped) ++n_.partial_generations;
    ReportAll(sender.unreported);
    Account(sender.accounted, 0);
    --n_.active_connections;
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
      const absl::string_view bytes(buffer.data(), static_cast<size_t>(n));
      const bool truncated = (msg.msg_flags & MSG_TRUNC) != 0;
      if (!bytes.empty() && bytes[0] == '{') {
        ReceiveGitLine(bytes, truncated);
        continue;
      }
      pid_t pid = 0;
      for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm != nullptr; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS) {
          ucred cred;
          memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
          pid = cred.pid;
        }
      }
      auto it = senders_.find(pid);
      if (it == senders_.end()) {
        if (senders_.size() >= o_.max_connections) {
          ++n_.refused_connections;
          Log(absl::StrCat("datagram of pid ", pid, " dropped: ", o_.max_connections,
                           " senders are open"));
          continue;
        }
        it = senders_.try_emplace(pid).first;
        it->second.splitter = std::make_unique<GenerationSplitter>(o_.max_generation_size);
        ++n_.connections;
        ++n_.active_connections;
      }
      Sender& sender = it->second;
      sender.last_seen = absl::Now();
      bool ok = !truncated;
      if (ok) {
        sender.splitter->Append(bytes);
        ok = Drain(*sender.splitter, sender.unreported, bytes);
        if (ok && !Account(sender.accounted, sender.splitter->buffered_bytes())) {
          MemoryLimitHit(absl::StrCat("the datagrams of pid ", pid));
          ok = false;
        }
      } else {
        ++n_.stream_errors;
        Log(absl::StrCat("a datagram of pid ", pid, " was larger than ", kMaxDatagram, " bytes"));
      }
      if (!ok) {
        EndSender(sender, /*dropped=*/true);
        senders_.erase(it);
      }
    }
  }

  void ReceiveGitLine(absl::string_view line, bool truncated) {
    if (git_datagrams_ == nullptr) {
      Trace2EventStream::Limits limits;
      limits.max_buffered = o_.max_total_buffered;
      limits.max_processes = o_.max_connections;
      git_datagrams_ = std::make_unique<Trace2EventStream>(limits);
    }
    const uint64_t opened = git_datagrams_->processes_opened();
    absl::Status status = truncated ? absl::ResourceExhaustedError(absl::StrCat(
                                          "a datagram larger than ", kMaxDatagram, " bytes"))
                                    : git_datagrams_->AppendLine(line, absl::Now());
    // A dgram git process counts as one connection.
    n_.connections += git_datagrams_->processes_opened() - opened;
    n_.git_connections += git_datagrams_->processes_opened() - opened;
    HandleGitCompleted(git_datagrams_.get());
    if (!status.ok()) {
      ++n_.git_invalid;
      Log(absl::StrCat("a git EVENT datagram dropped: ", status.message()));
    }
    if (!Account(git_accounted_, git_datagrams_->buffered_bytes())) {
      // Over the total: convert what the open git processes sent so far and free it.
      MemoryLimitHit("the open git processes' datagrams");
      git_datagrams_->EndAll();
      HandleGitCompleted(git_datagrams_.get());
      Account(git_accounted_, git_datagrams_->buffered_bytes());
    }
  }

  void EvictIdleSenders(absl::Time now) {
    for (auto it = senders_.begin(); it != senders_.end();) {
      if (now - it->second.last_seen < o_.dgram_idle) {
        ++it;
        continue;
      }
      EndSender(it->second);
      senders_.erase(it++);
    }
    if (git_datagrams_ != nullptr) {
      git_datagrams_->EndIdle(now, o_.dgram_idle);
      HandleGitCompleted(git_datagrams_.get());
      Account(git_accounted_, git_datagrams_->buffered_bytes());
    }
  }

  Collector& c_;
  const CollectorOptions& o_;
  Counters& n_;
  TraceStore store_;
  const std::string header_;
  std::vector<Conn> conns_;
  absl::flat_hash_map<pid_t, Sender> senders_;
  std::unique_ptr<Trace2EventStream> git_datagrams_;  // git lines on a dgram socket
  size_t git_accounted_ = 0;
  size_t total_buffered_ = 0;
  absl::Time accept_resume_ = absl::InfinitePast();
  absl::Time log_window_start_ = absl::InfinitePast();
  int log_count_ = 0;
  uint64_t log_suppressed_ = 0;
};

absl::Status Collector::Run() {
  Loop loop(*this);
  return loop.Run();
}

}  // namespace tracewire::tools
