// EventTarget: git's EVENT target (GIT_TRACE2_EVENT, trace2/tr2_tgt_event.c): one compact
// JSON object per line, keys in git's order (notes §2).
#ifndef TRACEWIRE_READER_TARGETS_EVENT_TARGET_H_
#define TRACEWIRE_READER_TARGETS_EVENT_TARGET_H_

#include <string>

#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "reader/targets/time_text.h"

namespace tracewire::targets {

// git's default GIT_TRACE2_EVENT_NESTING.
inline constexpr int kDefaultEventNesting = 2;

// The nesting limit git derives from a GIT_TRACE2_EVENT_NESTING / trace2.eventNesting
// value: atoi(value) if that is > 0, else kDefaultEventNesting ("0", "-1", "abc" and ""
// all keep 2).
int ParseEventNesting(absl::string_view value);

// Writes the EVENT format. Options: brief (time only on version and atexit, no file/line),
// event_nesting (region_enter, region_leave, data and data_json deeper than it are dropped),
// event_version ("evt" 3 or 4; 3 has no printf events). Experimental events are dropped.
class EventTarget : public Formatter {
 public:
  // `options` must be valid (event_version 3 or 4, event_nesting >= 1; see MakeFormatter).
  explicit EventTarget(const FormatterOptions& options);

  void Write(const reader::Event& event, std::string* out) override;

 private:
  bool brief_;
  int nesting_limit_;
  int version_;
  TimeText time_text_{TimeText::Style::kUtcDateTime};
  std::string scratch_;
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_EVENT_TARGET_H_
