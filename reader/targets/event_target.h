// EventTarget: git's EVENT target (GIT_TRACE2_EVENT, trace2/tr2_tgt_event.c): one compact
// JSON object per line, keys in git's order.
#ifndef TRACEWIRE_READER_TARGETS_EVENT_TARGET_H_
#define TRACEWIRE_READER_TARGETS_EVENT_TARGET_H_

#include <string>

#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "reader/targets/json_string_cache.h"
#include "reader/targets/time_text.h"

namespace tracewire::targets {

// git's default GIT_TRACE2_EVENT_NESTING.
inline constexpr int kDefaultEventNesting = 2;

// The nesting limit git derives from a GIT_TRACE2_EVENT_NESTING / trace2.eventNesting
// value: atoi(value) if that is > 0, else kDefaultEventNesting ("0", "-1", "abc" and ""
// all keep 2).
int ParseEventNesting(absl::string_view value);

// Writes the EVENT format. Options: brief (time only on version and atexit, no file/line),
// git_exact (git's own file/line on the events git writes from its own code), event_nesting
// (region_enter, region_leave, data and data_json deeper than it are dropped),
// event_version (the "evt" value, 1 to 4: each writes the events and keys git wrote in
// that version's era: 1 = git 2.22-2.23, 2 = 2.24-2.33 (too_many_files), 3 = 2.34-2.46
// (cmd_ancestry, child_ready, def_param "scope", timers and counters), 4 = 2.47+ (printf)).
// Experimental events are dropped. With event_stacks, events that carry a stack get a
// last key "stack" (not a git key).
class EventTarget : public Formatter {
 public:
  // `options` must be valid (kMinEventVersion <= event_version <= kMaxEventVersion,
  // event_nesting >= 1; see MakeFormatter).
  explicit EventTarget(const FormatterOptions& options);

  void Write(const reader::Event& event, std::string* out) override;
  bool context_free() const override { return true; }

 private:
  bool brief_;
  bool git_exact_;
  int nesting_limit_;
  int version_;
  bool stacks_;
  TimeText time_text_{TimeText::Style::kUtcDateTime};
  JsonStringCache strings_;  // sid, thread, file, category, label
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_EVENT_TARGET_H_
