#include "tests/targets/event_fixture.h"

#include "gtest/gtest.h"

namespace tracewire::testing {

absl::Time Utc(int year, int month, int day, int hour, int minute, int second, int64_t micros) {
  return absl::FromCivil(absl::CivilSecond(year, month, day, hour, minute, second),
                         absl::UTCTimeZone()) +
         absl::Microseconds(micros);
}

reader::Event Ev(reader::EventKind kind) {
  reader::Event e;
  e.kind = kind;
  e.sid = kSid;
  e.depth = 0;
  e.thread_name = "main";
  e.time = Utc(2026, 11, 22, 2, 0, 5, 812021);
  e.utc_offset_sec = 0;
  e.nesting = 1;
  return e;
}

std::string Format(absl::string_view name, const targets::FormatterOptions& options,
                   const reader::Event& event) {
  absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
      targets::MakeFormatter(name, options);
  EXPECT_TRUE(formatter.ok()) << formatter.status();
  if (!formatter.ok()) return "";
  std::string out;
  (*formatter)->Write(event, &out);
  (*formatter)->Finish(&out);
  return out;
}

std::string FormatBrief(absl::string_view name, const reader::Event& event) {
  targets::FormatterOptions options;
  options.brief = true;
  return Format(name, options, event);
}

reader::Event TimerTest1() {
  reader::Event timer = Ev(reader::EventKind::kTimer);
  timer.category = "test";
  timer.label = "test1";
  timer.intervals = 3;
  timer.t_total = 0.015219;
  timer.t_min = 0.005070;
  timer.t_max = 0.005076;
  return timer;
}

reader::Event DataK1() {
  reader::Event e = Ev(reader::EventKind::kData);
  e.repo = 0;
  e.t_abs = 0.5;
  e.t_rel = 0.5;
  e.category = "test_category";
  e.label = "k1";
  e.value_string = "v1";
  return e;
}

reader::Event TraverseTreesStatistics() {
  reader::Event e = Ev(reader::EventKind::kDataJson);
  e.repo = 1;
  e.t_abs = 0.004064;
  e.t_rel = 0.004064;
  e.category = "traverse_trees";
  e.label = "statistics";
  e.value_kind = reader::ValueKind::kJson;
  e.value_string = R"({"traverse_trees_count":1,"traverse_trees_max_depth":1})";
  return e;
}

reader::Event GitAliasChildStart() {
  reader::Event e = Ev(reader::EventKind::kChildStart);
  e.child_id = 1;
  e.child_class = "git_alias";
  e.is_git_command = true;
  e.argv = {"version"};
  return e;
}

}  // namespace tracewire::testing
