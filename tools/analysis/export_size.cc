#include "tools/analysis/export_size.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace tracewire::tools {

uint64_t EstimatedChromeBytes(uint64_t region_events, uint64_t other_events) {
  constexpr uint64_t kPerRegionEvent = 55;
  constexpr uint64_t kPerOtherEvent = 115;
  return region_events * kPerRegionEvent + other_events * kPerOtherEvent + 64;
}

std::string ExportSizeAdvice(uint64_t region_events, uint64_t other_events,
                             absl::Duration duration) {
  const uint64_t chrome = EstimatedChromeBytes(region_events, other_events);
  std::string out = absl::StrFormat("chrome export: about %.1f MB\n", chrome / 1048576.0);
  if (chrome <= kChromeComfortBytes) return out;
  // Events spread evenly: the part of the trace that gives about kChromeComfortBytes.
  const double fraction = static_cast<double>(kChromeComfortBytes) / static_cast<double>(chrome);
  const double seconds = absl::ToDoubleSeconds(duration) * fraction;
  const double window = seconds >= 1 ? std::floor(seconds) : std::floor(seconds * 1000) / 1000;
  absl::StrAppendFormat(&out,
                        "  over %d MB: decode --format=perfetto (a protobuf trace, several times "
                        "smaller), or a window of it:\n",
                        kChromeComfortBytes >> 20);
  absl::StrAppendFormat(&out, "  tracewire decode --format=chrome --since=0s --until=%gs ...\n",
                        window > 0 ? window : 0.001);
  absl::StrAppendFormat(
      &out,
      "  (about %.0f%% of the %.3f s the trace covers; move it with --since/--until, "
      "or keep one process with --pid/--sid)\n",
      fraction * 100, absl::ToDoubleSeconds(duration));
  return out;
}

}  // namespace tracewire::tools
