// PerfTarget: git's PERF target (GIT_TRACE2_PERF, trace2/tr2_tgt_perf.c): one '|'-separated
// line per event with fixed-width columns.
#ifndef TRACEWIRE_READER_TARGETS_PERF_TARGET_H_
#define TRACEWIRE_READER_TARGETS_PERF_TARGET_H_

#include <string>

#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "reader/targets/time_text.h"

namespace tracewire::targets {

// Writes the PERF format. Options: brief (no "<time> <file>:<line> | " prefix), git_exact
// (git's own file:line on the events git writes from its own code). Every event
// but too_many_files and experimental ones is written (PERF has no nesting filter), with
// (nesting - 1) * 2 dots before its payload.
class PerfTarget : public Formatter {
 public:
  explicit PerfTarget(const FormatterOptions& options);

  void Write(const reader::Event& event, std::string* out) override;
  bool context_free() const override { return true; }

 private:
  bool brief_;
  bool git_exact_;
  TimeText time_text_{TimeText::Style::kTimeOfDay};
  std::string scratch_;
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_PERF_TARGET_H_
