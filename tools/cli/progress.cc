#include "tools/cli/progress.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace tracewire::tools {

Progress::Progress(std::string label, std::string unit)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(absl::Now()) {
  last_draw_ = start_;
}

void Progress::Redraw(uint64_t bytes, std::optional<uint64_t> total_bytes, uint64_t items) {
  const absl::Time now = absl::Now();
  if (now - start_ < absl::Seconds(1) || now - last_draw_ < absl::Milliseconds(200)) return;
  last_draw_ = now;
  constexpr double kMiB = 1024.0 * 1024.0;
  std::string line = absl::StrFormat("\r%s: %.1f", label_, static_cast<double>(bytes) / kMiB);
  if (total_bytes.has_value() && *total_bytes > 0) {
    absl::StrAppendFormat(
        &line, " of %.1f MiB (%d%%)", static_cast<double>(*total_bytes) / kMiB,
        static_cast<int>(100.0 * static_cast<double>(bytes) / static_cast<double>(*total_bytes)));
  } else {
    line += " MiB";
  }
  absl::StrAppendFormat(&line, ", %d %s\033[K", items, unit_);
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::Finish() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace tracewire::tools
