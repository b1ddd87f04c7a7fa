// The streaming importer converts a window of lines at a time (with the next window read
// ahead): whatever the window size, the trace validates and decodes back to the stream.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"
#include "tests/cli/cli_runner.h"
#include "tests/cli/decode_event.h"
#include "tests/cli/event_compare.h"
#include "tools/trace2_import/trace2_import.h"

namespace tracewire::cli_test {
namespace {

// Four interleaved processes, regions to depth 3, two threads: every window of two lines
// or more (so one more read ahead) reproduces the stream as a whole-stream import does
// (t_abs and t_rel exact, "time" within 1 µs).
TEST(ImportWindowTest, EveryWindowSizeRoundTrips) {
  const std::string stream = ReadFile(Runfile("tests/cli/testdata/git_event_stream.json"));
  ASSERT_FALSE(stream.empty());
  for (size_t window :
       {size_t{2}, size_t{3}, size_t{5}, size_t{8}, size_t{13}, size_t{40}, size_t{1000}}) {
    SCOPED_TRACE(absl::StrCat("window of ", window, " lines"));
    tools::ImportOptions options;
    options.window_lines = window;
    absl::StatusOr<std::string> trace = tools::ImportTrace2Event(stream, options);
    ASSERT_TRUE(trace.ok()) << trace.status();
    const std::vector<std::string> problems = CompareEventStreams(stream, DecodeEvent(*trace), 1.0);
    EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
  }
}

// With one-line windows, a region_enter is placed before the data events that pin its
// time are read: their t_rel is then off by the wall clock's jitter (a few µs), and every
// other value is the same.
TEST(ImportWindowTest, OneLineWindowsAreOffByTheWallClockJitterAtMost) {
  const std::string stream = ReadFile(Runfile("tests/cli/testdata/git_event_stream.json"));
  tools::ImportOptions options;
  options.window_lines = 1;
  absl::StatusOr<std::string> trace = tools::ImportTrace2Event(stream, options);
  ASSERT_TRUE(trace.ok()) << trace.status();
  const std::vector<std::string> problems =
      CompareEventStreams(stream, DecodeEvent(*trace), 1.0, 10.0);
  EXPECT_TRUE(problems.empty()) << absl::StrJoin(problems, "\n");
}

}  // namespace
}  // namespace tracewire::cli_test
