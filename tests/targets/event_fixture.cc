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

}  // namespace tracewire::testing
