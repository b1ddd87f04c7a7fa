#include "tools/collector/datagram_receiver.h"

#include <errno.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tracewire::tools {
namespace {

// A datagram holds one frame: a batch (<= 64 KiB) or an experimental_batch (<= 64 KiB of
// data plus its header); or one git EVENT line.
constexpr size_t kMaxDatagram = 2 * 64 * 1024;

}  // namespace

DatagramReceiver::DatagramReceiver(int socket_fd, const CollectorOptions& options,
                                   TraceRouter& router, MemoryBudget& budget)
    : socket_fd_(socket_fd),
      options_(options),
      router_(router),
      counters_(router.counters()),
      budget_(budget),
      buffer_(kMaxDatagram) {}

DatagramReceiver::~DatagramReceiver() {
  // Stopped: the git processes still sending are converted with what they sent.
  for (auto& [pid, sender] : senders_) EndSender(sender);
  if (git_lines_ != nullptr) git_lines_->EndAll();
  router_.StoreCompletedGit(git_lines_.get());
}

absl::Time DatagramReceiver::NextDeadline(absl::Time now) const {
  return now + std::clamp(options_.dgram_idle / 2, absl::Milliseconds(10), absl::Seconds(1));
}

void DatagramReceiver::ReceiveDatagrams() {
  while (true) {
    iovec iov = {buffer_.data(), buffer_.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t n = recvmsg(socket_fd_, &msg, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // EAGAIN
    }
    const absl::string_view bytes(buffer_.data(), static_cast<size_t>(n));
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
      if (senders_.size() >= options_.max_connections) {
        ++counters_.refused_connections;
        router_.Log(absl::StrCat("datagram of pid ", pid, " dropped: ", options_.max_connections,
                                 " senders are open"));
        continue;
      }
      it = senders_.try_emplace(pid).first;
      it->second.splitter = std::make_unique<GenerationSplitter>(options_.max_generation_size);
      ++counters_.connections;
      ++counters_.active_connections;
    }
    Sender& sender = it->second;
    sender.last_seen = absl::Now();
    bool ok = !truncated;
    if (ok) {
      sender.splitter->Append(bytes);
      ok = router_.Drain(*sender.splitter, sender.unreported, bytes);
      if (ok && !budget_.Update(sender.budget_share, sender.splitter->buffered_bytes())) {
        router_.MemoryLimitHit(absl::StrCat("the datagrams of pid ", pid));
        ok = false;
      }
    } else {
      ++counters_.stream_errors;
      router_.Log(
          absl::StrCat("a datagram of pid ", pid, " was larger than ", kMaxDatagram, " bytes"));
    }
    if (!ok) {
      EndSender(sender, /*dropped=*/true);
      senders_.erase(it);
    }
  }
}

void DatagramReceiver::ReceiveGitLine(absl::string_view line, bool truncated) {
  if (git_lines_ == nullptr) {
    Trace2EventStream::Limits limits;
    limits.max_buffered = options_.max_total_buffered;
    limits.max_processes = options_.max_connections;
    git_lines_ = std::make_unique<Trace2EventStream>(limits);
  }
  const uint64_t opened = git_lines_->processes_opened();
  absl::Status status = truncated ? absl::ResourceExhaustedError(absl::StrCat(
                                        "a datagram larger than ", kMaxDatagram, " bytes"))
                                  : git_lines_->AppendLine(line, absl::Now());
  // A dgram git process counts as one connection.
  counters_.connections += git_lines_->processes_opened() - opened;
  counters_.git_connections += git_lines_->processes_opened() - opened;
  router_.StoreCompletedGit(git_lines_.get());
  if (!status.ok()) {
    ++counters_.git_invalid;
    router_.Log(absl::StrCat("a git EVENT datagram dropped: ", status.message()));
  }
  if (!budget_.Update(git_budget_share_, git_lines_->buffered_bytes())) {
    // Over the total: convert what the open git processes sent so far and free it.
    router_.MemoryLimitHit("the open git processes' datagrams");
    git_lines_->EndAll();
    router_.StoreCompletedGit(git_lines_.get());
    budget_.Update(git_budget_share_, git_lines_->buffered_bytes());
  }
}

void DatagramReceiver::EndSender(Sender& sender, bool dropped) {
  if (sender.splitter->has_partial() && !dropped) ++counters_.partial_generations;
  router_.ReportAll(sender.unreported);
  budget_.Update(sender.budget_share, 0);
  --counters_.active_connections;
}

void DatagramReceiver::ExpireIdle(absl::Time now) {
  for (auto it = senders_.begin(); it != senders_.end();) {
    if (now - it->second.last_seen < options_.dgram_idle) {
      ++it;
      continue;
    }
    EndSender(it->second);
    senders_.erase(it++);
  }
  if (git_lines_ != nullptr) {
    git_lines_->EndIdle(now, options_.dgram_idle);
    router_.StoreCompletedGit(git_lines_.get());
    budget_.Update(git_budget_share_, git_lines_->buffered_bytes());
  }
}

}  // namespace tracewire::tools
