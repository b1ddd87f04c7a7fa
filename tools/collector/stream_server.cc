#include "tools/collector/stream_server.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"

namespace tracewire::tools {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
// Reads per connection per poll round, so that one busy client cannot starve the others.
constexpr int kReadsPerRound = 16;

}  // namespace

StreamServer::StreamServer(int listen_fd, const CollectorOptions& options, TraceRouter& router,
                           MemoryBudget& budget)
    : listen_fd_(listen_fd),
      options_(options),
      router_(router),
      counters_(router.counters()),
      budget_(budget),
      buffer_(kReadChunk) {}

StreamServer::~StreamServer() {
  // Stopped: the git processes still sending are converted with what they sent.
  for (Connection& conn : connections_) Close(conn);
}

void StreamServer::AddPeerFds(std::vector<pollfd>& fds) const {
  for (const Connection& conn : connections_) fds.push_back({conn.fd, POLLIN, 0});
}

absl::Time StreamServer::NextDeadline(absl::Time now) const {
  absl::Time next = absl::InfiniteFuture();
  if (now < accept_resume_) next = accept_resume_;
  if (options_.idle_timeout > absl::ZeroDuration()) {
    for (const Connection& conn : connections_) {
      next = std::min(next, conn.last_activity + options_.idle_timeout);
    }
  }
  return next;
}

void StreamServer::ServePeers(absl::Span<const pollfd> peer_fds) {
  std::vector<bool> closed(connections_.size(), false);
  for (size_t i = 0; i < connections_.size(); ++i) {
    if (peer_fds[i].revents != 0) closed[i] = !ServeConnection(connections_[i]);
  }
  RemoveClosed(closed);
}

void StreamServer::ExpireIdle(absl::Time now) {
  if (options_.idle_timeout <= absl::ZeroDuration()) return;
  std::vector<bool> idle(connections_.size(), false);
  bool any = false;
  for (size_t i = 0; i < connections_.size(); ++i) {
    if (now - connections_[i].last_activity >= options_.idle_timeout) {
      idle[i] = any = true;
      ++counters_.idle_timeouts;
    }
  }
  if (any) {
    router_.Log(absl::StrCat(std::count(idle.begin(), idle.end(), true),
                             " connections closed: silent for ",
                             absl::FormatDuration(options_.idle_timeout)));
    RemoveClosed(idle);
  }
}

void StreamServer::Accept() {
  while (true) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: the pending connection stays queued and the socket readable;
        // rest instead of spinning on it.
        ++counters_.accept_pauses;
        accept_resume_ = absl::Now() + options_.accept_pause;
        router_.Log(absl::StrCat("accept: ", strerror(errno), "; not accepting for ",
                                 absl::FormatDuration(options_.accept_pause), " (",
                                 connections_.size(), " connections open)"));
      }
      return;  // EAGAIN, or a client that vanished: nothing to do
    }
    if (connections_.size() >= options_.max_connections) {
      close(fd);
      ++counters_.refused_connections;
      router_.Log(
          absl::StrCat("connection refused: ", options_.max_connections, " connections are open"));
      continue;
    }
    ++counters_.connections;
    ++counters_.active_connections;
    Connection& conn = connections_.emplace_back();
    conn.fd = fd;
    conn.last_activity = absl::Now();
  }
}

bool StreamServer::ServeConnection(Connection& conn) {
  for (int round = 0; round < kReadsPerRound; ++round) {
    const ssize_t n = read(conn.fd, buffer_.data(), kReadChunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    }
    if (n <= 0) return false;  // the end of the process's stream (or a reset connection)
    conn.last_activity = absl::Now();
    const absl::string_view bytes(buffer_.data(), static_cast<size_t>(n));
    if (conn.splitter == nullptr && conn.git == nullptr) {
      if (bytes[0] == '{') {
        ++counters_.git_connections;
        Trace2EventStream::Limits limits;
        limits.max_buffered = options_.max_generation_size;
        limits.max_processes = options_.max_connections;
        conn.git = std::make_unique<Trace2EventStream>(limits);
      } else {
        conn.splitter = std::make_unique<GenerationSplitter>(options_.max_generation_size);
      }
    }
    if (conn.git != nullptr) {
      const absl::Status status = conn.git->AppendStream(bytes, conn.last_activity);
      router_.StoreCompletedGit(conn.git.get());
      if (!status.ok()) {
        conn.dropped = true;
        if (absl::IsResourceExhausted(status)) {
          conn.over_limit = true;
          router_.MemoryLimitHit(absl::StrCat("a git EVENT connection (", status.message(), ")"));
        } else {
          ++counters_.stream_errors;
          router_.Log(absl::StrCat("a git EVENT connection dropped: ", status.message()));
        }
        return false;
      }
      if (!budget_.Update(conn.budget_share, conn.git->buffered_bytes())) {
        conn.dropped = conn.over_limit = true;
        router_.MemoryLimitHit("a git EVENT connection");
        return false;
      }
      continue;
    }
    conn.splitter->Append(bytes);
    if (!router_.Drain(*conn.splitter, conn.unreported, bytes)) {
      conn.dropped = true;
      return false;
    }
    if (!budget_.Update(conn.budget_share, conn.splitter->buffered_bytes())) {
      conn.dropped = true;
      router_.MemoryLimitHit("a connection");
      return false;
    }
  }
  return true;
}

void StreamServer::Close(Connection& conn) {
  if (conn.git != nullptr) {
    if (!conn.over_limit) {
      conn.git->EndAll();
      router_.StoreCompletedGit(conn.git.get());
    } else if (conn.git->has_partial() && !conn.dropped) {
      ++counters_.partial_generations;
    }
  }
  if (conn.splitter != nullptr && conn.splitter->has_partial() && !conn.dropped) {
    ++counters_.partial_generations;
  }
  router_.ReportAll(conn.unreported);
  budget_.Update(conn.budget_share, 0);
  close(conn.fd);
  --counters_.active_connections;
}

void StreamServer::RemoveClosed(const std::vector<bool>& closed) {
  size_t kept = 0;
  for (size_t i = 0; i < connections_.size(); ++i) {
    if (i < closed.size() && closed[i]) {
      Close(connections_[i]);
    } else {
      if (kept != i) connections_[kept] = std::move(connections_[i]);
      ++kept;
    }
  }
  connections_.resize(kept);
}

}  // namespace tracewire::tools
