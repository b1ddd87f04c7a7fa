// LossReport: what a salvage-mode read could not deliver.
#ifndef TRACEWIRE_READER_LOSS_REPORT_H_
#define TRACEWIRE_READER_LOSS_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tracewire::reader {

struct LossReport {
  uint64_t total_bytes = 0;      // size of the input
  uint64_t delivered_bytes = 0;  // header + generations whose events were delivered
  uint64_t lost_bytes = 0;       // total_bytes - delivered_bytes
  // Events known to be lost: every event of a skipped generation, plus the events that
  // could be framed in a truncated or corrupt tail.
  uint64_t lost_events = 0;
  // False when part of the lost bytes could not be framed, so lost_events is a lower bound.
  bool lost_events_exact = true;
  uint64_t generations_delivered = 0;
  uint64_t generations_lost = 0;     // skipped generations, plus a partial one at the end
  double lost_percent = 0;           // lost_bytes / total_bytes * 100
  std::vector<absl::Status> errors;  // why data was lost, in file order

  // True if nothing was lost.
  bool clean() const { return errors.empty(); }
  // One line, e.g. "lost 12.50% of the trace: 1234 of 9872 bytes, at least 56 events, 1
  // generation(s); first error: ...", or "no data lost".
  std::string Summary() const;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_LOSS_REPORT_H_
