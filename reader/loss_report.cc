#include "reader/loss_report.h"

#include "absl/strings/str_format.h"

namespace tracewire::reader {

std::string LossReport::Summary() const {
  if (clean()) return "no data lost";
  return absl::StrFormat(
      "lost %.2f%% of the trace: %d of %d bytes, %s%d events, %d generation(s); first error: %s",
      lost_percent, lost_bytes, total_bytes, lost_events_exact ? "" : "at least ", lost_events,
      generations_lost, errors.front().ToString());
}

}  // namespace tracewire::reader
