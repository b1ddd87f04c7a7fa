// DatagramReceiver: the collector on a SOCK_DGRAM socket (with SO_PASSCRED). The runtime
// sends a header datagram, then one datagram per frame; git sends one datagram per EVENT
// line. Datagrams of all processes arrive on the one socket: git lines (first byte '{')
// go to one Trace2EventStream, which tells processes apart by their sid; runtime frames
// are told apart by the sender's pid (SCM_CREDENTIALS), one GenerationSplitter per pid.
// Complete generations and converted git processes go to the TraceRouter.
//
// Hostile senders are bounded: a datagram larger than 128 KiB (two 64 KiB batches) is
// dropped (a runtime sender's with its unfinished generation); a runtime sender whose
// data crosses `max_generation_size` or the MemoryBudget is dropped; when git's lines
// cross the budget, the open git processes are converted with what they sent so far; at
// most `max_connections` runtime senders (and git processes) are open, the datagrams of
// further ones are dropped. A sender silent for `dgram_idle` ends: its unfinished
// generation is lost; a silent git process is converted with what it sent.
//
// Served by a PollLoop (it has no peer sockets: everything arrives on the listening one);
// destroying it (the loop stopped) ends every sender and converts the open git processes.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_DATAGRAM_RECEIVER_H_
#define TRACEWIRE_TOOLS_COLLECTOR_DATAGRAM_RECEIVER_H_

#include <poll.h>
#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "tools/collector/collector.h"
#include "tools/collector/generation_splitter.h"
#include "tools/collector/memory_budget.h"
#include "tools/collector/poll_loop.h"
#include "tools/collector/trace2_event_stream.h"
#include "tools/collector/trace_router.h"

namespace tracewire::tools {

class DatagramReceiver : public PollServer {
 public:
  // Receives on the (non-blocking) socket `socket_fd`. `options`, `router` and `budget`
  // must outlive the receiver.
  DatagramReceiver(int socket_fd, const CollectorOptions& options, TraceRouter& router,
                   MemoryBudget& budget);
  ~DatagramReceiver() override;
  DatagramReceiver(const DatagramReceiver&) = delete;
  DatagramReceiver& operator=(const DatagramReceiver&) = delete;

  bool Listening(absl::Time) const override { return true; }
  void AddPeerFds(std::vector<pollfd>&) const override {}
  // Wakes every dgram_idle / 2 (between 10 ms and 1 s) to end silent senders.
  absl::Time NextDeadline(absl::Time now) const override;
  void ServePeers(absl::Span<const pollfd>) override {}
  void ServeListeningSocket() override { ReceiveDatagrams(); }
  void ExpireIdle(absl::Time now) override;

 private:
  // A runtime sender (by pid).
  struct Sender {
    std::unique_ptr<GenerationSplitter> splitter;
    absl::Time last_seen;
    size_t budget_share = 0;  // bytes of it counted in the MemoryBudget
    UnreportedSids unreported;
  };

  // Receives the datagrams waiting on the socket.
  void ReceiveDatagrams();
  // One git EVENT line (`truncated`: it did not fit the buffer, and is dropped).
  void ReceiveGitLine(absl::string_view line, bool truncated);
  // Ends a sender: its unfinished generation is lost (counted unless it was `dropped`,
  // whose loss is counted already) and its processes are reported complete.
  void EndSender(Sender& sender, bool dropped = false);

  const int socket_fd_;
  const CollectorOptions& options_;
  TraceRouter& router_;
  CollectorCounters& counters_;
  MemoryBudget& budget_;
  absl::flat_hash_map<pid_t, Sender> senders_;
  std::unique_ptr<Trace2EventStream> git_lines_;  // created at the first git line
  size_t git_budget_share_ = 0;
  std::vector<char> buffer_;  // one datagram
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_DATAGRAM_RECEIVER_H_
