// PollLoop: the collector's poll(2) loop, on the calling thread. Each round it watches a
// wake-up descriptor (readable: the loop returns), the listening socket (unless the server
// rests it) and the server's peer sockets, each round waking at the server's next deadline
// at the latest; then it hands the server the peers' results, then the readable listening
// socket, then lets it expire what fell silent. Peers are served before the listening
// socket because serving the listening socket may add peers.
//
// The server (PollServer) is the stream server (stream_server.h) or the datagram receiver
// (datagram_receiver.h); the loop knows nothing of what they read.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_POLL_LOOP_H_
#define TRACEWIRE_TOOLS_COLLECTOR_POLL_LOOP_H_

#include <poll.h>

#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace tracewire::tools {

// What a PollLoop serves: a listening socket and its peers.
class PollServer {
 public:
  virtual ~PollServer() = default;

  // Whether the listening socket is watched in a round beginning at `now` (false while
  // the server rests it).
  virtual bool Listening(absl::Time now) const = 0;

  // Appends the peer sockets to watch (POLLIN) this round, in the order ServePeers takes
  // them.
  virtual void AddPeerFds(std::vector<pollfd>& fds) const = 0;

  // The latest time the round beginning at `now` may wait until (an idle timeout, the end
  // of a rest); absl::InfiniteFuture() to wait for input only.
  virtual absl::Time NextDeadline(absl::Time now) const = 0;

  // Serves the peers whose sockets have revents, as AddPeerFds added them.
  virtual void ServePeers(absl::Span<const pollfd> peer_fds) = 0;

  // The listening socket is readable.
  virtual void ServeListeningSocket() = 0;

  // Called after every round with the time: ends the peers that fell silent.
  virtual void ExpireIdle(absl::Time now) = 0;
};

// Serves `server` until `wake_fd` becomes readable (OK). Errors: poll(2)'s errno, or
// Internal if `listen_fd` reports POLLERR or POLLNVAL. A deadline wait is rounded up to
// the next millisecond and is at most 60 s.
absl::Status RunPollLoop(int wake_fd, int listen_fd, PollServer& server);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_POLL_LOOP_H_
