// ImportTimeline: reconstructs, for the EVENT lines of one process, the monotonic time of
// every event (microseconds since the process started), which the wire format needs and
// the EVENT stream only partly states.
//
// git measures t_abs and t_rel on one monotonic microsecond clock, but many events carry
// neither (region_enter/leave, child_*, thread_*, exec*, version, cmd_*, def_*, timers,
// counters) and have only "time", a wall clock each target reads separately a few
// microseconds later. So:
//  * events with t_abs are exact;
//  * a data event pins the enter time of its innermost region (or the start of its
//    thread) through its t_rel; a region_leave is its enter plus its t_rel, a thread_exit
//    its thread's start plus its t_rel;
//  * the other events ("floating") take their wall time minus the wall-clock offset of the
//    nearest exact event, clamped so that each thread's times never go backwards; a
//    floating region_enter is placed together with its leave.
// It also replays each thread's region stack exactly as the reader derives "nesting", and
// fails, naming the line, where the stream's nesting disagrees (regions the stream left
// out, e.g. because git's nesting limit was too low).
#ifndef TRACEWIRE_TOOLS_IMPORT_TIMELINE_H_
#define TRACEWIRE_TOOLS_IMPORT_TIMELINE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "format/event_spec.h"

namespace tracewire::tools {

// What the timeline needs of one event.
struct TimelineEvent {
  int line_number = 0;
  format::EventType type = format::EventType::kNone;
  uint32_t thread = 0;  // 0 is "main": its start is the process start
  std::optional<int64_t> time_us;
  std::optional<int64_t> t_abs_us;
  std::optional<int64_t> t_rel_us;
  std::optional<int> nesting;
};

// The reconstructed times of one process.
struct Timeline {
  std::vector<int64_t> micros;  // per event: monotonic µs since the process start (>= 0)
  // Per thread: its start (region[0] for t_rel) in µs: 0 for main, the thread_start event's
  // time, or for a thread without one a time at or before its first event.
  std::vector<int64_t> thread_start;
  // Wall-clock time of the process start (Unix µs) as the first exact event tells it.
  int64_t wall_origin_us = 0;
};

// Events after which the reader (like git) has unwound the thread's regions.
bool UnwindsRegions(format::EventType type);

// Builds the timeline of one process's events (in stream order); `thread_names` names the
// threads for messages. Errors are InvalidArgument naming the line.
absl::StatusOr<Timeline> BuildTimeline(absl::Span<const TimelineEvent> events,
                                       absl::Span<const std::string> thread_names);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_IMPORT_TIMELINE_H_
