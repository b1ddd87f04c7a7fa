// Collector: the receiving end of the runtime's af_unix targets and of git's own af_unix
// Trace2 EVENT target (`tracewire listen`). It listens on a Unix socket, accepts the streams
// of many processes at once and writes each process's trace to <out_dir>/<last sid
// component>, one file per sid, as a directory target would have written it (so
// ProcessTreeReader::OpenDirectory and `tracewire decode DIR` read the result as a process
// tree). Files are written through TraceStore (trace_store.h): never through a planted
// symlink, never outside out_dir.
//
// Stream sockets: one connection is one process (as trace2receiver assumes). A connection
// whose first byte is '{' is git's EVENT stream (JSON lines; Trace2EventStream converts
// each process with the importer when it ends); any other is the runtime's stream, cut into
// generations (GenerationSplitter); each complete generation is appended to its sid's file
// as "file header + generation" with one write, so every file is a valid trace at all
// times, even while several connections append to the same sid. A connection that ends
// (or is dropped for malformed data) in the middle of a generation loses only that
// generation.
//
// Datagram sockets: the runtime sends a header datagram, then one datagram per frame; git
// sends one datagram per EVENT line. Datagrams of all processes arrive on the one socket:
// git lines are told apart by their sid, runtime frames by the sender's pid (SO_PASSCRED
// credentials), one splitter per pid. A sender silent for `dgram_idle` loses its
// unfinished generation (a git process is converted with what it sent).
//
// Hostile clients are bounded: the socket is created with `socket_mode` (owner-only by
// default) whatever the umask; a connection silent for `idle_timeout` is closed; memory is
// bounded per connection (`max_generation_size`: one generation, or a git connection's
// unconverted lines) and in total (`max_total_buffered`): the connection or sender whose
// data crosses a limit is dropped; beyond `max_connections` new connections are refused;
// when accept(2) fails for want of file descriptors the listening socket rests for
// `accept_pause` instead of spinning. Every limit hit is counted (CollectorStats) and
// logged (`log`).
//
// Runs a poll loop (poll_loop.h) on the calling thread of Run() until Stop(), serving the
// socket with a StreamServer (stream_server.h) or a DatagramReceiver (datagram_receiver.h);
// both hand what they receive to a TraceRouter (trace_router.h).
#ifndef TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_H_
#define TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_H_

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "format/constants.h"

namespace tracewire::tools {

// A process whose trace is complete in its file: it ended (atexit or signal), its
// connection closed, or it fell silent.
struct CompletedProcess {
  std::string sid;
  std::string path;  // the file that holds its trace
};

struct CollectorOptions {
  std::string socket_path;  // absolute, shorter than sizeof(sockaddr_un::sun_path)
  bool datagram = false;    // SOCK_DGRAM instead of SOCK_STREAM
  std::string out_dir;      // created (one level) if missing
  // Permissions of the socket file (who may connect), set whatever the umask.
  mode_t socket_mode = 0600;
  size_t max_generation_size = format::kMaxGenerationSize;  // per connection or sender
  size_t max_total_buffered = size_t{1} << 30;              // all connections together
  size_t max_connections = 4096;  // further connections are closed at once
  // A connection that sends nothing for this long is closed (zero: never).
  absl::Duration idle_timeout = absl::Minutes(5);
  absl::Duration dgram_idle = absl::Minutes(1);
  // How long the listening socket rests after accept(2) failed with EMFILE/ENFILE.
  absl::Duration accept_pause = absl::Milliseconds(100);
  // Called on Run()'s thread for each process whose trace is complete (optional).
  std::function<void(const CompletedProcess&)> on_process_complete;
  // Called on Run()'s thread with one line (no newline) per notable event: a limit hit, a
  // malformed stream, a refused file (optional). At most 20 lines per 10 s; then a line
  // says how many were left out.
  std::function<void(const std::string&)> log;
};

// Parses a listen address as the runtime's targets spell it: "af_unix:[stream:|dgram:]PATH"
// (no type: stream). Fills socket_path and datagram of *options.
absl::Status ParseListenAddress(absl::string_view address, CollectorOptions* options);

// Counters of a collector, for logs and tests.
struct CollectorStats {
  uint64_t connections = 0;          // accepted connections, or dgram senders and git processes
  uint64_t active_connections = 0;   // open now (stream connections, dgram runtime senders)
  uint64_t generations_written = 0;  // complete generations appended to a file
  uint64_t bytes_written = 0;        // file bytes written, headers included
  uint64_t partial_generations = 0;  // unfinished generations lost at a disconnect
  uint64_t invalid_generations = 0;  // complete generations without a sid: not written
  uint64_t stream_errors = 0;        // connections dropped for malformed data
  uint64_t write_errors = 0;         // generations that could not be written
  uint64_t git_connections = 0;      // connections (dgram: processes) of git EVENT lines
  uint64_t git_processes = 0;        // git processes converted and written
  uint64_t git_invalid = 0;          // git processes or datagrams that could not be converted
  uint64_t unsafe_files = 0;         // writes refused: a symlink or non-regular file in the way
  uint64_t idle_timeouts = 0;        // connections closed after idle_timeout
  uint64_t memory_limit_drops = 0;   // connections or senders dropped over a memory limit
  uint64_t refused_connections = 0;  // connections closed at max_connections
  uint64_t accept_pauses = 0;        // times accept(2) ran out of file descriptors
};

struct CollectorCounters;  // collector_counters.h

class Collector {
 public:
  // Binds and listens. A stale socket file at the path (nothing accepts on it) is replaced;
  // a live one is AlreadyExists; any other file there is FailedPrecondition. The socket
  // file gets options.socket_mode (the process umask is set to 0177 around bind(2)).
  static absl::StatusOr<std::unique_ptr<Collector>> Listen(const CollectorOptions& options);

  // Closes every socket and removes the socket file.
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Serves until Stop(); unfinished generations are then dropped, and the lines of git
  // processes still open are converted as they are. Fails only for errors of the listening
  // socket itself.
  absl::Status Run();

  // Makes Run() return. Thread-safe and async-signal-safe (a write to a pipe).
  void Stop();

  // A snapshot of the counters (thread-safe).
  CollectorStats stats() const;

  // The path of the file that collects `sid`: <out_dir>/<SidFileName(last component)>
  // (TraceStore::FileFor).
  std::string FileFor(absl::string_view sid) const;

 private:
  explicit Collector(const CollectorOptions& options);

  CollectorOptions options_;
  int listen_fd_ = -1;
  int wake_read_ = -1;
  int wake_write_ = -1;
  std::unique_ptr<CollectorCounters> counters_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_H_
