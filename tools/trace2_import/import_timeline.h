// ImportTimeline: reconstructs, for the EVENT lines of one process, the monotonic time of
// every event (microseconds since the process started), which the wire format needs and
// the EVENT stream only partly states.
//
// git measures t_abs and t_rel on one monotonic microsecond clock, but many events carry
// neither (region_enter/leave, child_*, thread_*, exec*, version, cmd_*, def_*, timers,
// counters) and have only "time", a wall clock each target reads separately a few
// microseconds later (tens of microseconds under load), so the two clocks disagree. So:
//  * events with t_abs are exact;
//  * a data event pins the enter time of its innermost region (or the start of its
//    thread) through its t_rel; a region_leave is its enter plus its t_rel, a thread_exit
//    its thread's start plus its t_rel;
//  * the other events ("floating") go where their wall time minus the wall-clock offset of
//    the nearest exact event puts them, but only within the bounds that every stated value
//    leaves: each thread's times never go backwards, every pair keeps its t_rel (a floating
//    region_enter fixes its leave, and later pairs inside it must still fit), and exact
//    times stay exact. When the wall clock disagrees with the stated values, the stated
//    values win: only the placement of floating events, which git does not state, is
//    approximate.
// Every time is held within kMaxProcessMicros of the process start: a floating event whose
// wall time lies further out goes there (its generation's clock_sync keeps its "time"), and
// stated durations that add up to more are shortened (each one alone is refused when
// parsed).
// It also replays each thread's region stack exactly as the reader derives "nesting", and
// fails, naming the line, where the stream's nesting disagrees (regions the stream left
// out, e.g. because git's nesting limit was too low).
#ifndef TRACEWIRE_TOOLS_TRACE2_IMPORT_IMPORT_TIMELINE_H_
#define TRACEWIRE_TOOLS_TRACE2_IMPORT_IMPORT_TIMELINE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "format/event_spec.h"

namespace tracewire::tools {

// The latest monotonic time of an event of a process, in µs after the process start: 100
// years (36,525 days). No git process runs that long; the bound keeps the trace clock
// (nanoseconds in 64 bits) from overflowing. A t_abs, t_rel or duration beyond it is refused.
inline constexpr int64_t kMaxProcessMicros = int64_t{36525} * 86400 * 1000000;

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
  // Per event: monotonic µs since the process start, in [0, kMaxProcessMicros].
  std::vector<int64_t> micros;
  // Per thread: its start (region[0] for t_rel) in µs: 0 for main, the thread_start event's
  // time, or for a thread without one a time at or before its first event.
  std::vector<int64_t> thread_start;
  // Wall-clock time of the process start (Unix µs) as the first exact event tells it.
  int64_t wall_origin_us = 0;
};

// Events after which the reader (like git) has unwound the thread's regions: the rows the
// EventSpec table marks unwinds_regions.
bool UnwindsRegions(format::EventType type);

// Builds the timeline of one process's events (in stream order); `thread_names` names the
// threads for messages. Errors are InvalidArgument naming the line.
absl::StatusOr<Timeline> BuildTimeline(absl::Span<const TimelineEvent> events,
                                       absl::Span<const std::string> thread_names);

// What the timeline of one window of a process's events hands to the next window.
struct TimelineCarry {
  struct Thread {
    bool seen = false;
    bool exited = false;
    int64_t start_us = 0;              // region[0] of the thread (0 for main)
    std::vector<int64_t> regions;      // enter times of its open regions, outermost first
    std::vector<int> region_nesting;   // their nesting
    int64_t last_us = 0;               // time of its last event
  };
  bool started = false;                // a window was built
  std::vector<Thread> threads;
  std::optional<int64_t> offset_us;    // wall - monotonic of the last exact event
  int64_t wall_origin_us = 0;          // fixed by the first window
};

// The timeline of a long stream, window by window, in bounded memory. `events` holds the
// window's events followed by look-ahead events (the next window's, whose t_rel may pin
// the times of the window's floating events); only the first `window` events are placed
// (Timeline::micros has that many entries). `carry` is the state after the previous
// window (initially empty) and is updated to the state after this one; the previous
// windows' open regions, thread starts and last times constrain this one as if their
// events were in `events`. Equal to BuildTimeline over the whole stream when no event
// depends on one more than a window (plus look-ahead) away; otherwise a floating
// region_enter is placed by its wall time (within the wall clock's jitter of its exact
// time). Errors are InvalidArgument naming the line.
absl::StatusOr<Timeline> BuildTimelineWindow(absl::Span<const TimelineEvent> events, size_t window,
                                             absl::Span<const std::string> thread_names,
                                             TimelineCarry* carry);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_TRACE2_IMPORT_IMPORT_TIMELINE_H_
