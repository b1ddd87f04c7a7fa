#include "tools/import_timeline.h"

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

int64_t Sub(int64_t a, int64_t b) { return a == kMax || a == kMin ? a : a - b; }

bool IsData(EventType type) {
  return type == EventType::kData || type == EventType::kDataInt || type == EventType::kDataJson;
}

absl::string_view Name(EventType type) {
  const format::EventSpec* spec = format::LookupSpec(type);
  return type == EventType::kDataInt ? "data" : spec->trace2_event;
}

}  // namespace

bool UnwindsRegions(EventType type) {
  switch (type) {
    case EventType::kAtexit:
    case EventType::kThreadExit:
    case EventType::kThTimer:
    case EventType::kTimer:
    case EventType::kThCounter:
    case EventType::kCounter:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Timeline> BuildTimeline(absl::Span<const TimelineEvent> events,
                                       absl::Span<const std::string> thread_names) {
  const size_t n = events.size();
  const size_t threads = thread_names.size();
  std::vector<int> partner(n, -1);  // enter <-> leave, thread_start <-> thread_exit
  std::vector<int> anchor(n, -1);   // data, thread_exit: what its t_rel counts from
  std::vector<int> thread_start_event(threads, -1);
  std::vector<std::vector<int>> stacks(threads);

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

  // Per thread: the smallest exact time after each event and the largest before it.
  std::vector<int64_t> min_after(n), max_before(n);
  {
    std::vector<int64_t> running(threads, kMax);
    for (size_t i = n; i-- > 0;) {
      min_after[i] = running[events[i].thread];
      if (known[i].has_value()) {
        running[events[i].thread] = std::min(running[events[i].thread], *known[i]);
      }
    }
    running.assign(threads, kMin);
    for (size_t i = 0; i < n; ++i) {
      max_before[i] = running[events[i].thread];
      if (known[i].has_value()) {
        running[events[i].thread] = std::max(running[events[i].thread], *known[i]);
      }
    }
  }

  // Place every event, in stream order (each thread's times never go backwards).
  timeline.micros.assign(n, 0);
  std::vector<int64_t> last(threads, 0);
  std::vector<std::optional<int64_t>> placed(n);                       // ends of floating pairs
  std::vector<std::vector<std::pair<int, int64_t>>> pending(threads);  // open floating pairs
  for (size_t i = 0; i < n; ++i) {
    const TimelineEvent& e = events[i];
    auto& open = pending[e.thread];
    const int64_t lo = last[e.thread];
    int64_t cap = min_after[i];
    if (!open.empty()) cap = std::min(cap, open.back().second);
    int64_t value;
    if (known[i].has_value()) {
      value = std::max(*known[i], lo);
    } else if (placed[i].has_value()) {
      value = std::max(*placed[i], lo);
      auto it = std::find_if(open.begin(), open.end(),
                             [i](const auto& p) { return p.first == static_cast<int>(i); });
      if (it != open.end()) open.erase(it);
    } else {
      int64_t estimate = lo;
      if (e.time_us.has_value()) {
        const int64_t origin =
            prev_offset[i].value_or(next_offset[i].value_or(timeline.wall_origin_us));
        estimate = *e.time_us - origin;
      }
      const int end = partner[i];
      if (end > static_cast<int>(i) && !known[end].has_value()) {
        // A floating pair: place the begin so that the end (begin + t_rel) also fits.
        const int64_t rel = events[end].t_rel_us.value_or(0);
        const int64_t pair_lo = std::max(lo, Sub(max_before[end], rel));
        int64_t pair_hi = std::min(cap, Sub(min_after[end], rel));
        if (!open.empty()) pair_hi = std::min(pair_hi, Sub(open.back().second, rel));
        value = pair_lo > pair_hi ? pair_lo : std::clamp(estimate, pair_lo, pair_hi);
        placed[end] = value + rel;
        open.emplace_back(end, value + rel);
      } else {
        value = lo > cap ? lo : std::clamp(estimate, lo, cap);
      }
    }
    timeline.micros[i] = value;
    last[e.thread] = value;
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
