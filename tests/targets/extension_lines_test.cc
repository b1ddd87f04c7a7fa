// Tasks and gauges in git's text formats: NORMAL, PERF and EVENT show them as tracewire's
// documented extension lines (docs/cli.md), and --git_exact leaves them out so git's
// bytes stay exact.
#include <string>

#include "gtest/gtest.h"
#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "tests/targets/event_fixture.h"

namespace tracewire::testing {
namespace {

using reader::Event;
using reader::EventKind;

Event TaskBegin() {
  Event e = Ev(EventKind::kTaskBegin);
  e.category = "server";
  e.label = "request";
  e.task_id = 7;
  e.parent_task = 3;
  return e;
}

Event Task(EventKind kind) {
  Event e = Ev(kind);
  e.task_id = 7;
  return e;
}

Event Gauge() {
  Event e = Ev(EventKind::kGauge);
  e.category = "queue";
  e.label = "depth";
  e.value_int = -4;
  e.unit = "items";
  return e;
}

TEST(ExtensionLinesTest, Normal) {
  EXPECT_EQ(FormatBrief("normal", TaskBegin()), "task_begin[7] server/request parent:3\n");
  EXPECT_EQ(FormatBrief("normal", Task(EventKind::kTaskEnd)), "task_end[7]\n");
  EXPECT_EQ(FormatBrief("normal", Task(EventKind::kTaskAdopt)), "task_adopt[7]\n");
  EXPECT_EQ(FormatBrief("normal", Task(EventKind::kTaskRelease)), "task_release[7]\n");
  EXPECT_EQ(FormatBrief("normal", Gauge()), "gauge queue/depth:-4 items\n");
}

TEST(ExtensionLinesTest, Perf) {
  EXPECT_EQ(FormatBrief("perf", TaskBegin()),
            "d0 | main                     | task_begin   |     |  0.000000 |           | server "
            "      | task:7 parent:3 name:request\n");
  EXPECT_EQ(FormatBrief("perf", Task(EventKind::kTaskRelease)),
            "d0 | main                     | task_release |     |  0.000000 |           |       "
            "       | task:7\n");
  EXPECT_EQ(FormatBrief("perf", Gauge()),
            "d0 | main                     | gauge        |     |  0.000000 |           | queue  "
            "      | depth:-4 unit:items\n");
}

TEST(ExtensionLinesTest, Event) {
  EXPECT_EQ(FormatBrief("event", TaskBegin()),
            "{\"event\":\"task_begin\",\"sid\":\"20261122T020005.811933Z-H0a7c9cdf-P00001c73\","
            "\"thread\":\"main\",\"category\":\"server\",\"name\":\"request\",\"task\":7,"
            "\"parent\":3}\n");
  EXPECT_EQ(FormatBrief("event", Task(EventKind::kTaskAdopt)),
            "{\"event\":\"task_adopt\",\"sid\":\"20261122T020005.811933Z-H0a7c9cdf-P00001c73\","
            "\"thread\":\"main\",\"task\":7}\n");
  EXPECT_EQ(FormatBrief("event", Gauge()),
            "{\"event\":\"gauge\",\"sid\":\"20261122T020005.811933Z-H0a7c9cdf-P00001c73\","
            "\"thread\":\"main\",\"category\":\"queue\",\"name\":\"depth\",\"value\":-4,"
            "\"unit\":\"items\"}\n");
}

TEST(ExtensionLinesTest, GitExactLeavesThemOut) {
  targets::FormatterOptions options;
  options.git_exact = true;
  for (const char* format : {"normal", "perf", "event"}) {
    for (const Event& e : {TaskBegin(), Task(EventKind::kTaskEnd), Task(EventKind::kTaskAdopt),
                           Task(EventKind::kTaskRelease), Gauge()}) {
      EXPECT_EQ(Format(format, options, e), "") << format << " " << reader::EventKindName(e.kind);
    }
    // Without it they are written.
    EXPECT_NE(Format(format, targets::FormatterOptions{}, Gauge()), "") << format;
  }
}

}  // namespace
}  // namespace tracewire::testing
