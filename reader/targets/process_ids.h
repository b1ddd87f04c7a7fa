// ProcessIds: the pid a viewer output (Chrome JSON, Perfetto) shows for each process of a
// trace. A process keeps the pid its sid names ("-P<hex>") unless another process already
// took it (or it names none, or 0); those get synthetic pids counted up from above Linux's
// pid_max limit, skipping any pid already taken.
#ifndef TRACEWIRE_READER_TARGETS_PROCESS_IDS_H_
#define TRACEWIRE_READER_TARGETS_PROCESS_IDS_H_

#include <cstdint>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

namespace tracewire::targets {

class ProcessIds {
 public:
  // The first synthetic pid: above Linux's pid_max limit (2^22).
  static constexpr int64_t kFirstSyntheticPid = int64_t{1} << 22;

  // With `reserve_synthetic_range`, a sid's pid at or above kFirstSyntheticPid is not used
  // as it is (it gets a synthetic pid), so every shown pid fits the synthetic scheme.
  explicit ProcessIds(bool reserve_synthetic_range)
      : reserve_synthetic_range_(reserve_synthetic_range) {}

  // The pid to show for the process of `sid`, never one returned before (until Clear).
  int64_t Assign(absl::string_view sid);

  // Forgets every pid assigned.
  void Clear();

 private:
  bool reserve_synthetic_range_;
  absl::flat_hash_set<int64_t> used_;
  int64_t next_synthetic_ = kFirstSyntheticPid;
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_PROCESS_IDS_H_
