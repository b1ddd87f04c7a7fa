#include "tools/collector/poll_loop.h"

#include <errno.h>

#include <algorithm>
#include <cstdint>

#include "absl/time/clock.h"

namespace tracewire::tools {
namespace {

// The poll(2) timeout for waking at `deadline`: -1 for none, else the milliseconds to it
// rounded up, in [0, 60000].
int PollTimeoutMs(absl::Time now, absl::Time deadline) {
  if (deadline == absl::InfiniteFuture()) return -1;
  return static_cast<int>(
      std::clamp<int64_t>(absl::ToInt64Milliseconds(deadline - now) + 1, 0, 60000));
}

}  // namespace

absl::Status RunPollLoop(int wake_fd, int listen_fd, PollServer& server) {
  std::vector<pollfd> fds;
  while (true) {
    const absl::Time now = absl::Now();
    fds.clear();
    fds.push_back({wake_fd, POLLIN, 0});
    fds.push_back({server.Listening(now) ? listen_fd : -1, POLLIN, 0});
    server.AddPeerFds(fds);
    if (poll(fds.data(), fds.size(), PollTimeoutMs(now, server.NextDeadline(now))) < 0) {
      if (errno == EINTR) continue;
      return absl::ErrnoToStatus(errno, "poll");
    }
    if (fds[0].revents != 0) return absl::OkStatus();  // woken: stop
    if (fds[1].revents & (POLLERR | POLLNVAL)) {
      return absl::InternalError("the listening socket failed");
    }
    server.ServePeers(absl::MakeConstSpan(fds).subspan(2));
    if (fds[1].revents & POLLIN) server.ServeListeningSocket();
    server.ExpireIdle(absl::Now());
  }
}

}  // namespace tracewire::tools
