#include "tools/trace2_import/import_timeline.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_format.h"

namespace tracewire::tools {
namespace {

using format::EventType;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int kThreadAnchor = -2;  // anchor: the start of the event's thread

// a + b, where kMax and kMin stand for no bound, saturating.
int64_t Shift(int64_t a, int64_t b) {
  if (a == kMax || a == kMin) return a;
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? kMax : kMin;
  return sum;
}

bool IsData(EventType type) {
  return type == EventType::kData || type == EventType::kDataInt || type == EventType::kDataJson;
}

absl::string_view Name(EventType type) {
  const format::EventSpec* spec = format::LookupSpec(type);
  return type == EventType::kDataInt ? "data" : spec->trace2_event;
}

}  // namespace

bool UnwindsRegions(EventType type) {
  const format::EventSpec* spec = format::LookupSpec(type);
  return spec != nullptr && spec->unwinds_regions;
}

absl::StatusOr<Timeline> BuildTimeline(absl::Span<const TimelineEvent> events,
                                       absl::Span<const std::string> thread_names) {
  const size_t n = events.size();
  const size_t threads = thread_names.size();
  std::vector<int> partner(n, -1);  // enter <-> leave, thread_start <-> thread_exit
  std::vector<int> anchor(n, -1);   // data, thread_exit: what its t_rel counts from
  std::vector<int> thread_start_event(threads, -1);
  std::vector<std::vector<int>> stacks(threads);
  size_t max_depth = 0;

  // Region stacks, replayed as the reader derives nesting.
  for (size_t i = 0; i < n; ++i) {
    const TimelineEvent& e = events[i];
    std::vector<int>& stack = stacks[e.thread];
    auto check_nesting = [&]() -> absl::Status {
      const int expected = 1 + static_cast<int>(stack.size());
      if (e.nesting.has_value() && *e.nesting == expected) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrFormat(
          "line %d: %s has nesting %d, but the imported regions of thread \"%s\" give %d: "
          "every region_enter and region_leave must be in the stream (record it with "
          "GIT_TRACE2_EVENT_NESTING above the deepest nesting)",
          e.line_number, Name(e.type), e.nesting.value_or(0), thread_names[e.thread], expected));
    };
    switch (e.type) {
      case EventType::kRegionEnter:
        if (absl::Status s = check_nesting(); !s.ok()) return s;
        stack.push_back(static_cast<int>(i));
        max_depth = std::max(max_depth, stack.size());
        break;
      case EventType::kRegionLeave: {
        if (stack.empty()) {
          return absl::InvalidArgumentError(
              absl::StrFormat("line %d: region_leave with no open region on thread \"%s\"",
                              e.line_number, thread_names[e.thread]));
        }
        const int enter = stack.back();
        stack.pop_back();
        partner[i] = enter;
        partner[enter] = static_cast<int>(i);
        if (absl::Status s = check_nesting(); !s.ok()) return s;
        break;
      }
      case EventType::kThreadStart:
        if (thread_start_event[e.thread] < 0) thread_start_event[e.thread] = static_cast<int>(i);
        break;
      default:
        if (IsData(e.type)) {
          if (absl::Status s = check_nesting(); !s.ok()) return s;
          anchor[i] = stack.empty() ? kThreadAnchor : stack.back();
        }
        break;
    }
    if (e.type == EventType::kThreadExit) {
      anchor[i] = kThreadAnchor;
      const int start = thread_start_event[e.thread];
      if (start >= 0 && partner[start] < 0) {
        partner[start] = static_cast<int>(i);
        partner[i] = start;
      }
    }
    if (UnwindsRegions(e.type)) stack.clear();
  }

  // Exact times: t_abs, then what data events pin, then the ends of pinned pairs.
  std::vector<std::optional<int64_t>> known(n);
  std::vector<std::optional<int64_t>> virtual_start(threads);  // threads without thread_start
  if (threads > 0) virtual_start[0] = 0;
  for (size_t i = 0; i < n; ++i) known[i] = events[i].t_abs_us;
  for (size_t i = 0; i < n; ++i) {
    const TimelineEvent& e = events[i];
    if (!IsData(e.type) || !known[i].has_value() || !e.t_rel_us.has_value()) continue;
    const int64_t begin = *known[i] - *e.t_rel_us;
    int a = anchor[i];
    if (a == kThreadAnchor) a = e.thread == 0 ? -1 : thread_start_event[e.thread];
    if (a >= 0) {
      if (!known[a].has_value()) known[a] = begin;
    } else if (anchor[i] == kThreadAnchor && e.thread != 0 &&
               !virtual_start[e.thread].has_value()) {
      virtual_start[e.thread] = begin;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const TimelineEvent& e = events[i];
    if (known[i].has_value() || !e.t_rel_us.has_value()) continue;
    if (e.type == EventType::kRegionLeave && known[partner[i]].has_value()) {
      known[i] = *known[partner[i]] + *e.t_rel_us;
    } else if (e.type == EventType::kThreadExit) {
      if (partner[i] >= 0 && known[partner[i]].has_value()) {
        known[i] = *known[partner[i]] + *e.t_rel_us;
      } else if (partner[i] < 0 && virtual_start[e.thread].has_value()) {
        known[i] = *virtual_start[e.thread] + *e.t_rel_us;
      }
    }
  }

  // Wall-clock offsets (time - t_abs) of the exact events, to place the floating ones.
  Timeline timeline;
  std::vector<std::optional<int64_t>> prev_offset(n), next_offset(n);
  std::optional<int64_t> offset;
  for (size_t i = 0; i < n; ++i) {
    if (events[i].t_abs_us.has_value() && events[i].time_us.has_value()) {
      offset = *events[i].time_us - *events[i].t_abs_us;
    }
    prev_offset[i] = offset;
  }
  offset.reset();
  for (size_t i = n; i-- > 0;) {
    if (events[i].t_abs_us.has_value() && events[i].time_us.has_value()) {
      offset = *events[i].time_us - *events[i].t_abs_us;
    }
    next_offset[i] = offset;
  }
  if (offset.has_value()) {
    timeline.wall_origin_us = *offset;
  } else {
    for (const TimelineEvent& e : events) {
      if (e.time_us.has_value()) {
        timeline.wall_origin_us = *e.time_us;
        break;
      }
    }
  }

  // Each thread's times form a system of difference constraints: exact times, stated
  // durations (leave - enter = t_rel for every pair whose end states its t_rel), stream
  // order (never backwards) and, for a thread without thread_start, nothing before the
  // start its data events state. git's own monotonic times satisfy them all, so every
  // stated value can be kept; the wall clock only chooses among the solutions.
  std::vector<int> pair_end(n, -1), pair_begin(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const int end = partner[i];
    if (end > static_cast<int>(i) && events[end].t_rel_us.has_value()) {
      pair_end[i] = end;
      pair_begin[end] = static_cast<int>(i);
    }
  }
  std::vector<std::vector<int>> sequence(threads);  // per thread: its events in order
  for (size_t i = 0; i < n; ++i) sequence[events[i].thread].push_back(static_cast<int>(i));
  std::vector<int64_t> lower(n), upper(n, kMax);  // bounds of each event's time
  for (size_t i = 0; i < n; ++i) {
    lower[i] = std::max<int64_t>(0, virtual_start[events[i].thread].value_or(0));
    if (known[i].has_value()) {
      lower[i] = std::max(lower[i], *known[i]);
      upper[i] = *known[i];
    }
  }
  // Real streams need a round or two; hostile ones (no solution, or absurdly deep) stop here.
  const size_t max_rounds = std::min<size_t>(max_depth + 4, 64);
  auto duration = [&](int end) { return *events[end].t_rel_us; };
  // Tightens the bounds of the events at positions [first, last] of `seq` until they are
  // consistent with each other (a path of constraints crosses the span once per round in
  // each direction, and the longest needs one round per level of nesting).
  auto propagate = [&](const std::vector<int>& seq, size_t first, size_t last) {
    for (size_t round = 0; round < max_rounds; ++round) {
      bool changed = false;
      auto tighten_upper = [&](int i, int64_t value) {
        if (value < upper[i]) upper[i] = value, changed = true;
      };
      auto tighten_lower = [&](int i, int64_t value) {
        if (value > lower[i]) lower[i] = value, changed = true;
      };
      for (size_t p = last + 1; p-- > first;) {
        const int i = seq[p];
        if (p < last) tighten_upper(i, upper[seq[p + 1]]);
        const int begin = pair_begin[i];
        if (begin >= 0 && begin >= seq[first]) {
          tighten_upper(begin, Shift(upper[i], -duration(i)));
          tighten_lower(begin, Shift(lower[i], -duration(i)));
        }
      }
      for (size_t p = first; p <= last; ++p) {
        const int i = seq[p];
        if (p > first) tighten_lower(i, lower[seq[p - 1]]);
        const int end = pair_end[i];
        if (end >= 0 && end <= seq[last]) {
          tighten_upper(end, Shift(upper[i], duration(end)));
          tighten_lower(end, Shift(lower[i], duration(end)));
        }
      }
      if (!changed) return;
    }
  };
  std::vector<size_t> position(n);
  for (const std::vector<int>& seq : sequence) {
    for (size_t p = 0; p < seq.size(); ++p) position[seq[p]] = p;
    if (!seq.empty()) propagate(seq, 0, seq.size() - 1);
  }

  // Place each thread's events in order: an event goes where the wall clock puts it, within
  // the bounds that its predecessors' places leave. Once a pair's begin is placed its end
  // is fixed, and the bounds inside the pair are tightened again, so later pairs inside it
  // still fit. With consistent input every stated time comes out exact; with inconsistent
  // input (no solution) the order wins over the stated times.
  timeline.micros.assign(n, 0);
  for (const std::vector<int>& seq : sequence) {
    int64_t previous = 0;
    for (size_t p = 0; p < seq.size(); ++p) {
      const int i = seq[p];
      const TimelineEvent& e = events[i];
      int64_t estimate = lower[i];
      if (known[i].has_value()) {
        estimate = *known[i];
      } else if (e.time_us.has_value()) {
        estimate =
            *e.time_us - prev_offset[i].value_or(next_offset[i].value_or(timeline.wall_origin_us));
      }
      const int64_t value =
          std::min(std::max({std::min(estimate, upper[i]), lower[i], previous}), kMaxProcessMicros);
      timeline.micros[i] = value;
      previous = value;
      lower[i] = upper[i] = value;
      const int end = pair_end[i];
      if (end >= 0) {
        const int64_t end_value = Shift(value, duration(end));
        lower[end] = std::max(lower[end], end_value);
        if (end_value < upper[end]) {
          upper[end] = end_value;
          propagate(seq, p + 1, position[end]);
        }
      }
    }
  }

  // Thread starts.
  timeline.thread_start.assign(threads, 0);
  std::vector<bool> seen(threads, false);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t t = events[i].thread;
    if (seen[t]) continue;
    seen[t] = true;
    if (t == 0) continue;
    if (thread_start_event[t] >= 0) {
      timeline.thread_start[t] = timeline.micros[thread_start_event[t]];
    } else {
      timeline.thread_start[t] = std::max<int64_t>(
          0, std::min(virtual_start[t].value_or(timeline.micros[i]), timeline.micros[i]));
    }
  }
  return timeline;
}

}  // namespace tracewire::tools

namespace tracewire::tools {

absl::StatusOr<Timeline> BuildTimelineWindow(absl::Span<const TimelineEvent> events, size_t window,
                                             absl::Span<const std::string> thread_names,
                                             TimelineCarry* carry) {
  const size_t threads = thread_names.size();
  if (carry->threads.size() < threads) carry->threads.resize(threads);
  // The previous windows' state as exact events in front of this window's: per live
  // thread, its thread_start (main has none: it starts with the process), its open regions'
  // region_enter events, and a marker at its last time; the first marker also carries the
  // last wall-clock offset. No input line produces them (line 0).
  std::vector<TimelineEvent> all;
  all.reserve(events.size() + 4 * threads);
  bool offset_carried = false;
  if (carry->started) {
    for (uint32_t t = 0; t < threads; ++t) {
      const TimelineCarry::Thread& state = carry->threads[t];
      if (!state.seen || state.exited) continue;
      if (t != 0) {
        TimelineEvent start;
        start.type = format::EventType::kThreadStart;
        start.thread = t;
        start.t_abs_us = state.start_us;
        all.push_back(start);
      }
      for (size_t r = 0; r < state.regions.size(); ++r) {
        TimelineEvent enter;
        enter.type = format::EventType::kRegionEnter;
        enter.thread = t;
        enter.t_abs_us = state.regions[r];
        enter.nesting = state.region_nesting[r];
        all.push_back(enter);
      }
      TimelineEvent marker;
      marker.type = format::EventType::kCmdMode;  // neither a region nor data: no pairing
      marker.thread = t;
      marker.t_abs_us = state.last_us;
      if (!offset_carried && carry->offset_us.has_value()) {
        marker.time_us = state.last_us + *carry->offset_us;
        offset_carried = true;
      }
      all.push_back(marker);
    }
  }
  const size_t prefix = all.size();
  all.insert(all.end(), events.begin(), events.end());
  absl::StatusOr<Timeline> whole = BuildTimeline(all, thread_names);
  if (!whole.ok()) return whole.status();

  Timeline timeline;
  timeline.micros.assign(whole->micros.begin() + prefix, whole->micros.begin() + prefix + window);
  if (!carry->started) {
    carry->wall_origin_us = whole->wall_origin_us;
    carry->started = true;
  }
  timeline.wall_origin_us = carry->wall_origin_us;
  timeline.thread_start.assign(threads, 0);

  // The state after the window's events, for the next window.
  for (size_t i = 0; i < window; ++i) {
    const TimelineEvent& e = events[i];
    TimelineCarry::Thread& state = carry->threads[e.thread];
    const int64_t micros = timeline.micros[i];
    if (!state.seen) {
      state.seen = true;
      state.start_us = whole->thread_start[e.thread];
    }
    if (e.type == format::EventType::kThreadStart) state.start_us = micros;
    state.last_us = micros;
    if (e.type == format::EventType::kRegionEnter) {
      state.regions.push_back(micros);
      state.region_nesting.push_back(e.nesting.value_or(1));
    } else if (e.type == format::EventType::kRegionLeave && !state.regions.empty()) {
      state.regions.pop_back();
      state.region_nesting.pop_back();
    }
    if (UnwindsRegions(e.type)) {
      state.regions.clear();
      state.region_nesting.clear();
    }
    if (e.type == format::EventType::kThreadExit) state.exited = true;
    if (e.t_abs_us.has_value() && e.time_us.has_value()) {
      carry->offset_us = *e.time_us - *e.t_abs_us;
    }
  }
  for (uint32_t t = 0; t < threads; ++t) timeline.thread_start[t] = carry->threads[t].start_us;
  return timeline;
}

}  // namespace tracewire::tools
