// Test helper: hand-built reader::Event values for the formatter unit tests.
#ifndef TRACEWIRE_TESTS_TARGETS_EVENT_FIXTURE_H_
#define TRACEWIRE_TESTS_TARGETS_EVENT_FIXTURE_H_

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/targets/formatter.h"

namespace tracewire::testing {

// The sid used by Ev() ("20261122T020005.811933Z-H0a7c9cdf-P00001c73").
inline constexpr absl::string_view kSid = "20261122T020005.811933Z-H0a7c9cdf-P00001c73";

// UTC time of the given civil second plus `micros`.
absl::Time Utc(int year, int month, int day, int hour, int minute, int second, int64_t micros);

// An event of `kind` on thread "main" of process kSid (depth 0, nesting 1, no file, no
// repo, UTC offset 0, time 2026-11-22T02:00:05.812021Z, t_abs 0).
reader::Event Ev(reader::EventKind kind);

// Output of one formatter (by name, from MakeFormatter) for `event`.
std::string Format(absl::string_view name, const targets::FormatterOptions& options,
                   const reader::Event& event);

// Format() with default options except brief = true.
std::string FormatBrief(absl::string_view name, const reader::Event& event);

// Sample events that several formatter tests write (on top of Ev()):
// timer test/test1: 3 intervals, total 0.015219, min 0.005070, max 0.005076.
reader::Event TimerTest1();
// data test_category/k1 = "v1" in repo 0, t_abs and t_rel 0.5.
reader::Event DataK1();
// data_json traverse_trees/statistics in repo 1, t_abs and t_rel 0.004064.
reader::Event TraverseTreesStatistics();
// child_start [ch1] of class git_alias, a git command with argv {"version"}.
reader::Event GitAliasChildStart();

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_TARGETS_EVENT_FIXTURE_H_
