// NormalTarget: git's NORMAL target (GIT_TRACE2, trace2/tr2_tgt_normal.c): one plain text
// line per event.
#ifndef TRACEWIRE_READER_TARGETS_NORMAL_TARGET_H_
#define TRACEWIRE_READER_TARGETS_NORMAL_TARGET_H_

#include <string>

#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "reader/targets/time_text.h"

namespace tracewire::targets {

// Writes the NORMAL format. Options: brief (no "<time> <file>:<line>" prefix), git_exact
// (git's own file:line on the events git writes from its own code). As git, it ignores
// thread_start, thread_exit, region_enter, region_leave, data, data_json and too_many_files
// (and experimental events); printf lines carry the bare message.
class NormalTarget : public Formatter {
 public:
  explicit NormalTarget(const FormatterOptions& options);

  void Write(const reader::Event& event, std::string* out) override;
  bool context_free() const override { return true; }

 private:
  bool brief_;
  bool git_exact_;
  TimeText time_text_{TimeText::Style::kTimeOfDay};
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_NORMAL_TARGET_H_
