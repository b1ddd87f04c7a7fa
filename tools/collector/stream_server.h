// StreamServer: the collector on a SOCK_STREAM socket. It accepts connections, one per
// process (as trace2receiver assumes), and reads them all at once, at most 16 reads of
// 64 KiB per connection per poll round so that one busy client cannot starve the others.
// A connection whose first byte is '{' is git's EVENT stream (JSON lines, converted per
// process by a Trace2EventStream when the process or the connection ends); any other is
// the runtime's stream, cut into generations by a GenerationSplitter; complete
// generations and converted processes go to the TraceRouter. A connection that ends (or
// is dropped for malformed data) in the middle of a generation loses only that
// generation.
//
// Hostile clients are bounded: a connection silent for `idle_timeout` is closed; the
// connection whose data crosses `max_generation_size` or, with everything buffered, the
// MemoryBudget is dropped (a git connection over a limit is not converted); beyond
// `max_connections` new connections are closed at once; when accept(2) fails for want of
// file descriptors (or memory) the listening socket rests for `accept_pause` instead of
// spinning.
//
// Served by a PollLoop; destroying it (the loop stopped) closes every connection, the
// lines of git processes still open converted as they are.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_STREAM_SERVER_H_
#define TRACEWIRE_TOOLS_COLLECTOR_STREAM_SERVER_H_

#include <poll.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "tools/collector/collector.h"
#include "tools/collector/generation_splitter.h"
#include "tools/collector/memory_budget.h"
#include "tools/collector/poll_loop.h"
#include "tools/collector/trace2_event_stream.h"
#include "tools/collector/trace_router.h"

namespace tracewire::tools {

class StreamServer : public PollServer {
 public:
  // Serves the listening (non-blocking) socket `listen_fd`. `options`, `router` and
  // `budget` must outlive the server.
  StreamServer(int listen_fd, const CollectorOptions& options, TraceRouter& router,
               MemoryBudget& budget);
  ~StreamServer() override;
  StreamServer(const StreamServer&) = delete;
  StreamServer& operator=(const StreamServer&) = delete;

  bool Listening(absl::Time now) const override { return now >= accept_resume_; }
  void AddPeerFds(std::vector<pollfd>& fds) const override;
  absl::Time NextDeadline(absl::Time now) const override;
  void ServePeers(absl::Span<const pollfd> peer_fds) override;
  void ServeListeningSocket() override { Accept(); }
  void ExpireIdle(absl::Time now) override;

 private:
  // A connection: undecided until its first byte, then the runtime's stream or git's EVENT
  // lines.
  struct Connection {
    int fd = -1;
    std::unique_ptr<GenerationSplitter> splitter;  // the runtime's stream
    std::unique_ptr<Trace2EventStream> git;        // git's EVENT lines
    absl::Time last_activity;
    size_t budget_share = 0;  // bytes of it counted in the MemoryBudget
    UnreportedSids unreported;
    // Why it is closed, if it was dropped: its loss is counted already (a malformed stream,
    // a memory limit); the lines of git processes over a limit are not converted.
    bool dropped = false;
    bool over_limit = false;
  };

  // Accepts the pending connections, up to max_connections open.
  void Accept();
  // Reads what `conn` has; false once the connection is to be closed.
  bool ServeConnection(Connection& conn);
  // Closes `conn`: the rest of a git connection is converted (unless it went over a limit),
  // an unfinished runtime generation is lost, and its processes are reported complete.
  void Close(Connection& conn);
  // Closes the connections marked in `closed` (by index) and forgets them.
  void RemoveClosed(const std::vector<bool>& closed);

  const int listen_fd_;
  const CollectorOptions& options_;
  TraceRouter& router_;
  CollectorCounters& counters_;
  MemoryBudget& budget_;
  std::vector<Connection> connections_;
  absl::Time accept_resume_ = absl::InfinitePast();  // the listening socket rests until then
  std::vector<char> buffer_;                         // one read
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_STREAM_SERVER_H_
