#include "reader/targets/process_ids.h"

#include <optional>

#include "reader/sid_parts.h"

namespace tracewire::targets {

int64_t ProcessIds::Assign(absl::string_view sid) {
  const std::optional<uint32_t> pid = reader::PidFromSidComponent(reader::SidLastComponent(sid));
  int64_t chosen;
  if (pid.has_value() && *pid != 0 && (!reserve_synthetic_range_ || *pid < kFirstSyntheticPid) &&
      !used_.contains(*pid)) {
    chosen = *pid;
  } else {
    while (used_.contains(next_synthetic_)) ++next_synthetic_;
    chosen = next_synthetic_++;
  }
  used_.insert(chosen);
  return chosen;
}

void ProcessIds::Clear() {
  used_.clear();
  next_synthetic_ = kFirstSyntheticPid;
}

}  // namespace tracewire::targets
