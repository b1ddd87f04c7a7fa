// The registry of output formats (reader/targets/output_formats.h) says what its formatters
// do: every format is made by MakeFormatter under its name, its `skips` is its formatter's
// skips_cheaply(), and its `streams` says whether Write writes an event's output before
// Finish. Unknown names are refused with the list of the registry's names.
#include "reader/targets/output_formats.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "tests/targets/event_fixture.h"

namespace tracewire::testing {
namespace {

using reader::Event;
using reader::EventKind;

const reader::SymbolFrame kFrames[] = {{.pc = 0x1000, .func = "leaf"},
                                       {.pc = 0x2000, .func = "main"}};

// A short process: version, start, a region, a CPU sample, exit, atexit.
std::vector<Event> Process() {
  std::vector<Event> events;
  events.push_back(Ev(EventKind::kVersion));
  events.back().exe = "2.47.0";
  events.push_back(Ev(EventKind::kStart));
  events.back().argv = {"git", "status"};
  events.push_back(Ev(EventKind::kRegionEnter));
  events.back().category = "index";
  events.back().label = "read";
  events.push_back(Ev(EventKind::kCpuSample));
  events.back().stack = kFrames;
  events.back().count = 1;
  events.push_back(Ev(EventKind::kRegionLeave));
  events.back().category = "index";
  events.back().label = "read";
  events.push_back(Ev(EventKind::kExit));
  events.push_back(Ev(EventKind::kAtexit));
  return events;
}

TEST(OutputFormatsTest, EveryFormatIsMadeAndDoesWhatItsRowSays) {
  ASSERT_FALSE(targets::OutputFormats().empty());
  for (const targets::OutputFormat& format : targets::OutputFormats()) {
    SCOPED_TRACE(format.name);
    EXPECT_EQ(targets::FindOutputFormat(format.name), &format);
    EXPECT_FALSE(format.help.empty());
    auto formatter = targets::MakeFormatter(format.name, targets::FormatterOptions());
    ASSERT_TRUE(formatter.ok()) << formatter.status();
    EXPECT_EQ((*formatter)->skips_cheaply(), format.skips);
    std::string written;
    for (const Event& e : Process()) (*formatter)->Write(e, &written);
    EXPECT_EQ(!written.empty(), format.streams);
    std::string finished = written;
    (*formatter)->Finish(&finished);
    EXPECT_FALSE(finished.empty());
  }
}

TEST(OutputFormatsTest, AnUnknownNameListsTheFormats) {
  auto formatter = targets::MakeFormatter("svg", targets::FormatterOptions());
  ASSERT_FALSE(formatter.ok());
  for (const targets::OutputFormat& format : targets::OutputFormats()) {
    EXPECT_TRUE(absl::StrContains(formatter.status().message(), format.name));
  }
}

}  // namespace
}  // namespace tracewire::testing
