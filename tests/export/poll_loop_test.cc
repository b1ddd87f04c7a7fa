// The collector's poll loop (tools/collector/poll_loop.h) with a scripted server on pipes:
// it returns when woken, hands readable peers and the readable listening socket to the
// server (peers first), does not watch a resting listening socket, wakes at the server's
// deadline and fails when the listening socket does.
#include "tools/collector/poll_loop.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "gtest/gtest.h"

namespace tracewire::testing {
namespace {

using tools::PollServer;
using tools::RunPollLoop;

// A non-blocking pipe, closed at the end of the test.
struct Pipe {
  Pipe() {
    int fds[2];
    EXPECT_EQ(pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
    read_fd = fds[0];
    write_fd = fds[1];
  }
  ~Pipe() {
    if (read_fd >= 0) close(read_fd);
    if (write_fd >= 0) close(write_fd);
  }
  void Write() const { EXPECT_EQ(write(write_fd, "x", 1), 1); }
  void Drain() const {
    char byte;
    while (read(read_fd, &byte, 1) == 1) {
    }
  }
  int read_fd = -1;
  int write_fd = -1;
};

// A server whose answers and reactions the test sets; it records what the loop called.
struct ScriptedServer : PollServer {
  bool Listening(absl::Time) const override { return listening; }
  void AddPeerFds(std::vector<pollfd>& fds) const override {
    for (int fd : peers) fds.push_back({fd, POLLIN, 0});
  }
  absl::Time NextDeadline(absl::Time now) const override {
    return wait == absl::InfiniteDuration() ? absl::InfiniteFuture() : now + wait;
  }
  void ServePeers(absl::Span<const pollfd> peer_fds) override {
    std::string seen;
    for (const pollfd& fd : peer_fds) seen.push_back(fd.revents != 0 ? 'r' : '-');
    calls.push_back("peers " + seen);
    if (on_peers) on_peers();
  }
  void ServeListeningSocket() override {
    calls.push_back("listening");
    if (on_listening) on_listening();
  }
  void ExpireIdle(absl::Time) override {
    calls.push_back("expire");
    ++expires;
    if (on_expire) on_expire();
  }

  bool listening = true;
  std::vector<int> peers;
  absl::Duration wait = absl::InfiniteDuration();
  std::function<void()> on_peers, on_listening, on_expire;
  std::vector<std::string> calls;
  int expires = 0;
};

TEST(PollLoopTest, ReturnsWhenWokenBeforeServingAnything) {
  Pipe wake, listening;
  ScriptedServer server;
  wake.Write();
  listening.Write();
  EXPECT_TRUE(RunPollLoop(wake.read_fd, listening.read_fd, server).ok());
  EXPECT_TRUE(server.calls.empty());
}

TEST(PollLoopTest, ServesReadablePeersThenTheListeningSocketThenExpires) {
  Pipe wake, listening, quiet_peer, busy_peer;
  ScriptedServer server;
  server.peers = {quiet_peer.read_fd, busy_peer.read_fd};
  busy_peer.Write();
  listening.Write();
  server.on_listening = [&] {
    listening.Drain();
    busy_peer.Drain();
  };
  server.on_expire = [&] { wake.Write(); };
  EXPECT_TRUE(RunPollLoop(wake.read_fd, listening.read_fd, server).ok());
  EXPECT_EQ(server.calls, (std::vector<std::string>{"peers -r", "listening", "expire"}));
}

TEST(PollLoopTest, ARestingListeningSocketIsNotWatched) {
  Pipe wake, listening;
  ScriptedServer server;
  server.listening = false;
  server.wait = absl::Milliseconds(5);
  listening.Write();  // readable, but resting
  server.on_expire = [&] {
    if (server.expires == 3) wake.Write();
  };
  EXPECT_TRUE(RunPollLoop(wake.read_fd, listening.read_fd, server).ok());
  EXPECT_EQ(server.expires, 3);
  for (const std::string& call : server.calls) EXPECT_NE(call, "listening");
}

TEST(PollLoopTest, WakesAtTheServersDeadline) {
  Pipe wake, listening;
  ScriptedServer server;
  server.wait = absl::Milliseconds(20);
  server.on_expire = [&] {
    if (server.expires == 3) wake.Write();
  };
  const absl::Time start = absl::Now();
  EXPECT_TRUE(RunPollLoop(wake.read_fd, listening.read_fd, server).ok());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(60));
  EXPECT_EQ(server.expires, 3);
  EXPECT_EQ(server.calls.size(), 6u);  // "peers " and "expire" each round: nothing was readable
}

TEST(PollLoopTest, FailsWhenTheListeningSocketFails) {
  Pipe wake, listening;
  // The write end of a pipe whose read end is closed polls POLLERR.
  close(listening.read_fd);
  listening.read_fd = -1;
  ScriptedServer server;
  const absl::Status status = RunPollLoop(wake.read_fd, listening.write_fd, server);
  EXPECT_TRUE(absl::IsInternal(status)) << status;
  EXPECT_TRUE(server.calls.empty());
}

}  // namespace
}  // namespace tracewire::testing
