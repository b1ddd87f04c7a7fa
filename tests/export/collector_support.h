// Test support for the collector tests: a Collector running on its own thread, and client
// sockets.
#ifndef TRACEWIRE_TESTS_EXPORT_COLLECTOR_SUPPORT_H_
#define TRACEWIRE_TESTS_EXPORT_COLLECTOR_SUPPORT_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/string_view.h"
#include "tools/collector/collector.h"

namespace tracewire::testing {

// A running collector on its own thread.
class RunningCollector {
 public:
  explicit RunningCollector(tools::CollectorOptions options);
  ~RunningCollector() { Stop(); }

  // Waits (at most 60 s, unless `wait_for_disconnects` is false) until no connection is
  // open, and `connections` were accepted, then stops the collector and returns its
  // counters.
  tools::CollectorStats Stop(bool wait_for_disconnects = true, uint64_t connections = 0);

  tools::Collector* get() { return collector_.get(); }

 private:
  std::unique_ptr<tools::Collector> collector_;
  std::thread thread_;
};

// A stream connection to the socket at `path` (a failed connect fails the test; -1).
int ConnectStream(const std::string& path);

// Sends all of `bytes` (MSG_NOSIGNAL); fails the test on an error.
void SendAll(int fd, absl::string_view bytes);

// `tracewire listen` running as a child process, its stderr in a file.
struct Listener {
  pid_t pid = -1;
  std::string socket;
  std::string out_dir;
  std::string log;  // its stderr
};

// Starts `tracewire listen af_unix:KIND:SOCKET --out DIR FLAGS...` (KIND stream or dgram)
// through /bin/sh -c, after `shell_prefix` (e.g. "ulimit -n 16 &&"); waits (60 s at most)
// for the socket file.
Listener StartListener(const std::string& name, const std::string& kind,
                       const std::vector<std::string>& flags, const std::string& shell_prefix = "");

// Sends SIGTERM and waits; returns the exit code.
int StopListener(const Listener& listener);

// The number just before `label` in `log` (the listener's summary lines); ~0 if absent.
uint64_t Counted(const std::string& log, const std::string& label);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_EXPORT_COLLECTOR_SUPPORT_H_
