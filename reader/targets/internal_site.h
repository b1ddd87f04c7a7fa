// The file:line git's targets report for the events they write from their own code rather
// than from the caller's (atexit, signal, timer/th_timer, counter/th_counter): each target
// names its own source file and line. The runtime records these events with no file; when
// git's exact output is asked for (FormatterOptions::git_exact), the targets substitute the
// lines of git 2.49 and later.
#ifndef TRACEWIRE_READER_TARGETS_INTERNAL_SITE_H_
#define TRACEWIRE_READER_TARGETS_INTERNAL_SITE_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "reader/event.h"

namespace tracewire::targets {

// One target's own file and the line of each of its internal events.
struct InternalSites {
  absl::string_view file;
  int64_t signal_line;
  int64_t atexit_line;
  int64_t timer_line;
  int64_t counter_line;
};

// git 2.49-2.55+ (trace2/tr2_tgt_*.c).
inline constexpr InternalSites kNormalInternalSites = {"trace2/tr2_tgt_normal.c", 118, 128, 357,
                                                       372};
inline constexpr InternalSites kPerfInternalSites = {"trace2/tr2_tgt_perf.c", 207, 219, 580, 596};
inline constexpr InternalSites kEventInternalSites = {"trace2/tr2_tgt_event.c", 191, 207, 657, 678};

// The file and line a target prints for `event`: the event's own, or, with `git_exact`, the
// target's internal site for an internal event recorded with no file. An empty file means
// none is printed.
inline void SiteOf(const reader::Event& event, const InternalSites& sites, bool git_exact,
                   absl::string_view* file, int64_t* line) {
  *file = event.file;
  *line = event.line;
  if (!event.file.empty() || !git_exact) return;
  switch (event.kind) {
    case reader::EventKind::kSignal:
      *line = sites.signal_line;
      break;
    case reader::EventKind::kAtexit:
      *line = sites.atexit_line;
      break;
    case reader::EventKind::kThTimer:
    case reader::EventKind::kTimer:
      *line = sites.timer_line;
      break;
    case reader::EventKind::kThCounter:
    case reader::EventKind::kCounter:
      *line = sites.counter_line;
      break;
    default:
      return;
  }
  *file = sites.file;
}

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_INTERNAL_SITE_H_
