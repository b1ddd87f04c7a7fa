// RateLimitedLog: the collector's log of notable events (a limit hit, a malformed stream, a
// refused file), bounded so that hostile clients cannot flood it: at most `burst` lines per
// `window`; the lines beyond are left out and counted, and the first line logged in a later
// window is preceded by one saying how many were left out ("N more messages were left out").
// Not thread-safe: one per poll loop.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_RATE_LIMITED_LOG_H_
#define TRACEWIRE_TOOLS_COLLECTOR_RATE_LIMITED_LOG_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/time/time.h"

namespace tracewire::tools {

class RateLimitedLog {
 public:
  using Sink = std::function<void(const std::string&)>;

  // Logs to `sink` (one line, no newline, per call; an empty sink logs nothing), which must
  // outlive the log.
  explicit RateLimitedLog(const Sink& sink, int burst = 20,
                          absl::Duration window = absl::Seconds(10));

  // Logs `line` now (absl::Now()).
  void Log(const std::string& line);

  // Logs `line` at `now`: passed on unless `burst` lines were passed on since the window
  // began; a window begins at the first line at least `window` after the previous one began.
  void LogAt(const std::string& line, absl::Time now);

 private:
  const Sink& sink_;
  const int burst_;
  const absl::Duration window_;
  absl::Time window_start_ = absl::InfinitePast();
  int logged_ = 0;           // lines passed on in this window
  uint64_t suppressed_ = 0;  // lines left out in this window
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_RATE_LIMITED_LOG_H_
