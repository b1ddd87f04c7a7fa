#include "tools/collector/rate_limited_log.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tracewire::tools {

RateLimitedLog::RateLimitedLog(const Sink& sink, int burst, absl::Duration window)
    : sink_(sink), burst_(burst), window_(window) {}

void RateLimitedLog::Log(const std::string& line) {
  if (!sink_) return;
  LogAt(line, absl::Now());
}

void RateLimitedLog::LogAt(const std::string& line, absl::Time now) {
  if (!sink_) return;
  if (now - window_start_ >= window_) {
    if (suppressed_ > 0) sink_(absl::StrCat(suppressed_, " more messages were left out"));
    window_start_ = now;
    logged_ = 0;
    suppressed_ = 0;
  }
  if (logged_ < burst_) {
    ++logged_;
    sink_(line);
  } else {
    ++suppressed_;
  }
}

}  // namespace tracewire::tools
