// Collector: the receiving end of the runtime's af_unix targets (`tracewire listen`). It
// listens on a Unix socket, accepts the runtime streams of many processes at once and
// writes each process's trace to <out_dir>/<last sid component>, one file per sid, as a
// directory target would have written it (so ProcessTreeReader::OpenDirectory and
// `tracewire decode DIR` read the result as a process tree).
//
// Stream sockets: one connection is one process (as trace2receiver assumes). The bytes are
// cut into generations (GenerationSplitter); each complete generation is appended to its
// sid's file as "file header + generation" with one write, so every file is a valid trace
// at all times, even while several connections append to the same sid. A connection that
// ends (or is dropped for malformed data) in the middle of a generation loses only that
// generation. Memory per connection is bounded by max_generation_size.
//
// Datagram sockets: the runtime sends a header datagram, then one datagram per frame.
// Datagrams of all processes arrive on the one socket; they are told apart by the sender's
// pid (SO_PASSCRED credentials), one splitter per pid. A pid silent for `dgram_idle`
// loses its unfinished generation.
//
// Runs a poll loop on the calling thread of Run() until Stop().
#ifndef TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_H_
#define TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "format/constants.h"

namespace tracewire::tools {

struct CollectorOptions {
  std::string socket_path;  // absolute, shorter than sizeof(sockaddr_un::sun_path)
  bool datagram = false;    // SOCK_DGRAM instead of SOCK_STREAM
  std::string out_dir;      // created (one level) if missing
  size_t max_generation_size = format::kMaxGenerationSize;
  size_t max_connections = 4096;  // further connections are closed at once
  absl::Duration dgram_idle = absl::Minutes(1);
};

// Parses a listen address as the runtime's targets spell it: "af_unix:[stream:|dgram:]PATH"
// (no type: stream). Fills socket_path and datagram of *options.
absl::Status ParseListenAddress(absl::string_view address, CollectorOptions* options);

// Counters of a collector, for logs and tests.
struct CollectorStats {
  uint64_t connections = 0;          // accepted connections (stream) or senders (dgram)
  uint64_t active_connections = 0;   // open now
  uint64_t generations_written = 0;  // complete generations appended to a file
  uint64_t bytes_written = 0;        // file bytes written, headers included
  uint64_t partial_generations = 0;  // unfinished generations lost at a disconnect
  uint64_t invalid_generations = 0;  // complete generations without a sid: not written
  uint64_t stream_errors = 0;        // connections dropped for malformed data
  uint64_t write_errors = 0;         // generations that could not be written
};

class Collector {
 public:
  // Binds and listens. A stale socket file at the path (nothing accepts on it) is replaced;
  // a live one is AlreadyExists; any other file there is FailedPrecondition.
  static absl::StatusOr<std::unique_ptr<Collector>> Listen(const CollectorOptions& options);

  // Closes every socket and removes the socket file.
  ~Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Serves until Stop(); unfinished generations are then dropped. Fails only for errors of
  // the listening socket itself.
  absl::Status Run();

  // Makes Run() return. Thread-safe and async-signal-safe (a write to a pipe).
  void Stop();

  // A snapshot of the counters (thread-safe).
  CollectorStats stats() const;

  // The path of the file that collects `sid`: <out_dir>/<SidFileName(last component)>.
  std::string FileFor(absl::string_view sid) const;

 private:
  struct Counters;
  class Loop;
  explicit Collector(const CollectorOptions& options);

  CollectorOptions options_;
  int listen_fd_ = -1;
  int wake_read_ = -1;
  int wake_write_ = -1;
  std::unique_ptr<Counters> counters_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_COLLECTOR_H_
