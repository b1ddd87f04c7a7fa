// Export size advice for `tracewire stats`: about how large a trace's Chrome JSON export
// would be, and, past what the viewers open comfortably, a time window to decode instead.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_EXPORT_SIZE_H_
#define TRACEWIRE_TOOLS_ANALYSIS_EXPORT_SIZE_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace tracewire::tools {

// Chrome JSON exports above this many bytes get a window suggested (the Perfetto UI's JSON
// importer and the DevTools panel slow down and fail in the hundreds of MB).
inline constexpr uint64_t kChromeComfortBytes = uint64_t{500} << 20;

// About how many bytes `tracewire decode --format=chrome` writes for a trace with
// `region_events` region_enter/region_leave events and `other_events` other events: about
// 55 bytes per region event (one "X" object per region) and 115 per other event (an
// instant with its args), as measured on the benchmark traces (docs/performance.md).
uint64_t EstimatedChromeBytes(uint64_t region_events, uint64_t other_events);

// The advice lines of `tracewire stats` (each ending in '\n'): the estimate, and when it
// exceeds kChromeComfortBytes, a window of about that size (a fraction of `duration`, the
// time from the first to the last event) and the Perfetto format.
std::string ExportSizeAdvice(uint64_t region_events, uint64_t other_events,
                             absl::Duration duration);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_EXPORT_SIZE_H_
