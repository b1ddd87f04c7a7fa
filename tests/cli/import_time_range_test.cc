// The importer on EVENT streams whose times are far out of the ordinary: wall clocks that
// jump by centuries, "time" values outside the years 1970 to 9999, stated times beyond
// the 100 years a process may span. Whatever it accepts validates and decodes back to the
// stream's times (in one window and in two-line windows); what it cannot keep it refuses
// as InvalidArgument naming the line.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"
#include "tests/cli/decode_event.h"
#include "tests/cli/event_compare.h"
#include "tools/trace2_import/trace2_import.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;

constexpr char kSid[] = "20261123T053924.039623Z-H0a7c9cdf-P000067b3";

// An EVENT line of process kSid: `fields` follow "event", "sid", "thread" and "time".
std::string Line(const std::string& event, const std::string& thread, const std::string& time,
                 const std::string& fields) {
  return absl::StrCat(R"({"event":")", event, R"(","sid":")", kSid, R"(","thread":")", thread,
                      R"(","time":")", time, R"(",)", fields, "}\n");
}

// The two imports the fuzzer makes: in one window, and compressed in two-line windows.
std::vector<tools::ImportOptions> OneWindowAndTwoLineWindows(const std::string& stream) {
  tools::ImportOptions whole;
  whole.window_lines = stream.size() + 1;
  tools::ImportOptions windows;
  windows.compress = true;
  windows.window_lines = 2;
  return {whole, windows};
}

// Imports `stream` both ways and expects each trace to decode back to it.
void ExpectRoundTrip(const std::string& stream) {
  for (const tools::ImportOptions& options : OneWindowAndTwoLineWindows(stream)) {
    SCOPED_TRACE(absl::StrCat("windows of ", options.window_lines, " lines"));
    absl::StatusOr<std::string> trace = tools::ImportTrace2Event(stream, options);
    ASSERT_TRUE(trace.ok()) << trace.status();
    const std::vector<std::string> problems = CompareEventStreams(stream, DecodeEvent(*trace), 1.0);
    EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  }
}

// Imports `stream` both ways and expects both to refuse it with the same InvalidArgument.
std::string ImportError(const std::string& stream) {
  std::string message;
  for (const tools::ImportOptions& options : OneWindowAndTwoLineWindows(stream)) {
    absl::StatusOr<std::string> trace = tools::ImportTrace2Event(stream, options);
    EXPECT_TRUE(absl::IsInvalidArgument(trace.status())) << trace.status();
    if (!message.empty()) EXPECT_EQ(trace.status().message(), message);
    message = std::string(trace.status().message());
  }
  return message;
}

// The case import_fuzzer found (tests/fuzz/regressions/import/wall-clock-jumps-by-centuries):
// the main thread's events have no t_abs and a wall clock in the year 7302, then back in
// 2026, and the only exact event, on another thread, puts the process start in 2052. The
// main thread's monotonic time was its wall time minus 2052 (5,250 years), and in
// nanoseconds it overflowed the trace clock: the trace did not validate. Now every event
// stays within 100 years of the process start and each generation's clock_sync keeps
// every "time".
TEST(ImportTimeRangeTest, WallClockCenturiesAwayFromTheExactEventsRoundTrips) {
  const std::string stream =
      absl::StrCat(Line("version", "main", "7302-11-23T05:39:24.039825Z",
                        R"("file":"common-main.c","line":50,"evt":"3","exe":"2.39.5")"),
                   Line("cmd_name", "main", "2026-11-23T05:39:24.040103Z",
                        R"("file":"git.c","line":461,"name":"init","hierarchy":"init")"),
                   Line("atexit", "main+", "2052-11-23T05:39:24.057429Z",
                        R"("file":"trace2/tr2_tgt_event.c","line":204,"t_abs":0.059874,"code":0)"));
  ExpectRoundTrip(stream);
}

// A process that starts (by its wall clock) in the year 9999: the trace clock's origin is
// held back, and the times are kept.
TEST(ImportTimeRangeTest, StartInTheYear9999RoundTrips) {
  const std::string stream = absl::StrCat(
      Line("version", "main", "9999-12-31T23:59:59.000001Z",
           R"("file":"common-main.c","line":50,"evt":"3","exe":"2.39.5")"),
      Line("start", "main", "9999-12-31T23:59:59.000020Z",
           R"("file":"common-main.c","line":51,"t_abs":0.000020,"argv":["git","status"])"),
      Line("exit", "main", "9999-12-31T23:59:59.900000Z",
           R"("file":"git.c","line":721,"t_abs":0.900000,"code":0)"));
  ExpectRoundTrip(stream);
}

// Stated durations that each fit but together put an event beyond 100 years after the
// process start: accepted (the trace validates), every t_abs exact.
TEST(ImportTimeRangeTest, DurationsAddingUpBeyondTheSpanStillValidate) {
  const std::string stream = absl::StrCat(
      Line("start", "main", "2026-11-23T05:39:24.000010Z",
           R"("file":"common-main.c","line":51,"t_abs":3000000000.0,"argv":["git"])"),
      Line("region_enter", "main", "2026-11-23T05:39:24.000020Z",
           R"("file":"a.c","line":1,"nesting":1,"category":"c","label":"l")"),
      Line("region_leave", "main", "2026-11-23T05:39:24.000030Z",
           R"("file":"a.c","line":2,"t_rel":3000000000.0,"nesting":1,"category":"c","label":"l")"));
  for (const tools::ImportOptions& options : OneWindowAndTwoLineWindows(stream)) {
    absl::StatusOr<std::string> trace = tools::ImportTrace2Event(stream, options);
    ASSERT_TRUE(trace.ok()) << trace.status();
    EXPECT_THAT(DecodeEvent(*trace), HasSubstr(R"("t_abs":3000000000.000000,)"));
  }
}

TEST(ImportTimeRangeTest, TimesOutsideTheYears1970To9999AreRefused) {
  const std::string version_fields = R"("file":"common-main.c","line":50,"evt":"3","exe":"2.39.5")";
  const std::string ok = Line("version", "main", "2026-11-23T05:39:24.039825Z", version_fields);
  EXPECT_THAT(ImportError(absl::StrCat(
                  ok, Line("cmd_name", "main", "1969-12-31T23:59:59.999999Z",
                           R"("file":"git.c","line":461,"name":"init","hierarchy":"init")"))),
              HasSubstr(R"(line 2: cmd_name: "time" "1969-12-31T23:59:59.999999Z" is outside )"
                        R"(the years 1970 to 9999)"));
  EXPECT_THAT(ImportError(absl::StrCat(
                  ok, ok, Line("version", "main", "10000-01-01T00:00:00.000000Z", version_fields))),
              HasSubstr(R"(line 3: version: "time" "10000-01-01T00:00:00.000000Z" is outside)"));
  EXPECT_THAT(ImportError(Line("version", "main", "-292277022657-01-27T08:29:52Z", version_fields)),
              HasSubstr("line 1: version: \"time\""));
}

TEST(ImportTimeRangeTest, StatedTimesBeyondAHundredYearsAreRefused) {
  const std::string start =
      Line("start", "main", "2026-11-23T05:39:24.000010Z",
           R"("file":"common-main.c","line":51,"t_abs":0.00001,"argv":["git"])");
  EXPECT_THAT(ImportError(absl::StrCat(
                  start, Line("exit", "main", "2026-11-23T05:39:25.000000Z",
                              R"("file":"git.c","line":721,"t_abs":3200000000.0,"code":0)"))),
              HasSubstr(R"(line 2: exit: "t_abs" is out of range (beyond 100 years))"));
  EXPECT_THAT(
      ImportError(absl::StrCat(start, Line("thread_exit", "main", "2026-11-23T05:39:25.000000Z",
                                           R"("file":"a.c","line":1,"t_rel":-1e10)"))),
      HasSubstr(R"(line 2: thread_exit: "t_rel" is out of range)"));
}

}  // namespace
}  // namespace tracewire::cli_test
