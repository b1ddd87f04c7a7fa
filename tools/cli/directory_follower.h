// DirectoryFollower: decodes, while they are being written, the trace files of a directory
// that holds one file per process (as `tracewire listen` and TRACEWIRE=<dir> write them).
// Each file is tailed by a follow reader (reader/follow.h) on its own thread, with its own
// formatter, so that every process prints as git's per-process Trace2 targets do. A file's
// thread ends once its process has ended (atexit or signal) or when Finish() is called.
//
// The processes' generations arrive in no particular order; their events are held for
// `delay` and then handed to the sink in time order, so that a child's events come between
// its parent's child_start and child_exit as they happened (an event that arrives later
// than `delay` is printed at once).
//
//   DirectoryFollower follower(options, [](absl::string_view text) { Print(text); });
//   while (running) { follower.Scan(); Sleep(); }
//   absl::Status status = follower.Finish();
#ifndef TRACEWIRE_TOOLS_CLI_DIRECTORY_FOLLOWER_H_
#define TRACEWIRE_TOOLS_CLI_DIRECTORY_FOLLOWER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "reader/targets/formatter.h"

namespace tracewire::tools {

struct DirectoryFollowerOptions {
  std::string dir;
  std::string format = "perf";  // a line format: "perf", "normal" or "event"
  targets::FormatterOptions formatter;
  // How often a file's end is checked for new data.
  absl::Duration poll_interval = absl::Milliseconds(25);
  // How long events are held to be put in time order (see above).
  absl::Duration delay = absl::Milliseconds(500);
};

class DirectoryFollower {
 public:
  // `sink` receives the formatted output; it is called from Scan() and Finish() only.
  DirectoryFollower(DirectoryFollowerOptions options, std::function<void(absl::string_view)> sink);
  // Finish()es if that was not done.
  ~DirectoryFollower();
  DirectoryFollower(const DirectoryFollower&) = delete;
  DirectoryFollower& operator=(const DirectoryFollower&) = delete;

  // Starts following the files that appeared in the directory since the last call (regular
  // files whose names do not start with '.'), and prints the events held long enough.
  void Scan();

  // Decodes what every file holds now, then stops following. Returns the first error of a
  // file (an invalid trace, or an I/O error); a process cut inside a generation is not an
  // error (its complete generations were decoded).
  absl::Status Finish();

  // Files followed so far.
  size_t files() const;
  // Threads following a file now (their process has not ended yet).
  size_t active() const;

 private:
  // One file's thread; `done` is set when it ends (Scan() then joins it).
  struct Follower {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  void Follow(std::string path, std::shared_ptr<std::atomic<bool>> done);
  // Holds the output of one event that happened at `time`.
  void Hold(absl::Time time, std::string text);
  // Prints, in time order, the held output of the events that happened before `until`.
  void Release(absl::Time until);
  void RecordError(const absl::Status& status);

  const DirectoryFollowerOptions options_;
  const std::function<void(absl::string_view)> sink_;
  std::atomic<bool> stop_{false};
  bool finished_ = false;
  absl::flat_hash_set<std::string> seen_;
  std::vector<Follower> followers_;
  std::mutex mu_;  // guards held_, arrivals_ and error_
  // Output by event time, then by arrival.
  std::map<std::pair<absl::Time, uint64_t>, std::string> held_;
  uint64_t arrivals_ = 0;
  absl::Status error_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_DIRECTORY_FOLLOWER_H_
