// The CPU profile rows in the reader: cpu_sample and cpu_samples_lost are validated like
// every row, delivered in time order among their thread's events, attributed by the track
// model to the regions open on their thread, and written as folded stacks; a pending
// stack_ref waits across a sample; version 2 traces still read.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "format/event_spec.h"
#include "format/file_header_encoder.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "reader/targets/folded_target.h"
#include "reader/targets/formatter.h"
#include "reader/track_model.h"
#include "tests/reader/trace_builder.h"

namespace tracewire::reader {
namespace {

using ::tracewire::testing::FindRecordOffset;
using ::tracewire::testing::GenBuilder;
using ::tracewire::testing::ReadAll;
using ::tracewire::testing::Trace;
using E = format::EventType;

// A generation: main starts (version), enters region outer then inner; samples at 1300
// (inside both, stack main>outer_fn>inner_fn, weight 2) and 1500 (inside outer only,
// stack main>outer_fn); a lost count at 1600; main also samples before any region on
// thread 1 ("worker") at 1250.
std::string SampledTrace() {
  GenBuilder g(1);
  const uint64_t main_fn = g.S("main");
  const uint64_t outer_fn = g.S("outer_fn");
  const uint64_t inner_fn = g.S("inner_fn");
  const uint64_t deep =
      g.Stack({{0x1003, inner_fn, 0, 0}, {0x2003, outer_fn, 0, 0}, {0x3003, main_fn, 0, 0}});
  const uint64_t shallow = g.Stack({{0x2008, outer_fn, 0, 0}, {0x3003, main_fn, 0, 0}});
  g.Ev(0, E::kVersion, 1100, g.Site("main.c", 1), {g.S("1.0")});
  g.Ev(0, E::kRegionEnter, 1200, g.Site("a.c", 7, "idx", "outer"), {0});
  g.Ev(0, E::kRegionEnter, 1210, g.Site("a.c", 9, "idx", "inner"), {0});
  g.Raw(0, E::kCpuSample, 1300, {deep, 2});
  g.Ev(0, E::kRegionLeave, 1400, g.Site("a.c", 9, "idx", "inner"), {0});
  g.Raw(0, E::kCpuSample, 1500, {shallow, 1});
  g.Raw(0, E::kCpuSamplesLost, 1600, {3});
  g.Ev(0, E::kRegionLeave, 1700, g.Site("a.c", 7, "idx", "outer"), {0});
  g.Ev(1, E::kThreadStart, 1150, g.Site("w.c", 3), {g.S("th01:worker")});
  g.Raw(1, E::kCpuSample, 1250, {shallow, 1});
  g.Ev(1, E::kThreadExit, 1800, g.Site("w.c", 4), {});
  return Trace({g.Finish()});
}

std::string Functions(absl::Span<const SymbolFrame> stack) {
  std::vector<std::string> names;
  for (const SymbolFrame& frame : stack) names.emplace_back(frame.func);
  return absl::StrJoin(names, ">");
}

TEST(CpuSampleTest, SamplesAreDeliveredInTimeOrderWithTheirStacks) {
  const std::string trace = SampledTrace();
  // Frames' spans live until the next Next(): check each event as it comes.
  Reader reader(MemorySource(trace));
  std::vector<std::string> seen;
  for (;;) {
    absl::StatusOr<const Event*> e = reader.Next();
    ASSERT_TRUE(e.ok()) << e.status();
    if (*e == nullptr) break;
    const Event& event = **e;
    std::string line =
        absl::StrFormat("%d %s t%d", event.ticks, EventKindName(event.kind), event.thread_id);
    if (event.kind == EventKind::kCpuSample) {
      absl::StrAppend(&line, " ", Functions(event.stack), " w", event.count, " n", event.nesting);
    } else if (event.kind == EventKind::kCpuSamplesLost) {
      absl::StrAppend(&line, " ", event.count);
    }
    seen.push_back(line);
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "1100 version t0",
                      "1150 thread_start t1",
                      "1200 region_enter t0",
                      "1210 region_enter t0",
                      "1250 cpu_sample t1 outer_fn>main w1 n1",
                      "1300 cpu_sample t0 inner_fn>outer_fn>main w2 n3",
                      "1400 region_leave t0",
                      "1500 cpu_sample t0 outer_fn>main w1 n2",
                      "1600 cpu_samples_lost t0 3",
                      "1700 region_leave t0",
                      "1800 thread_exit t1",
                  }));
  // Counting reads (Next() with count_only, SkipEvents) agree.
  EXPECT_TRUE(ReadAll(trace).status.ok());
}

// Records what the model reports for each sample: the labels of its open regions.
struct SampleRecorder : TrackListener {
  std::vector<std::string> labels;  // by slot
  std::vector<std::string> samples;
  void OnSliceBegin(const Slice& slice, const Event& e) {
    if (slice.kind != SliceKind::kRegion) return;
    if (labels.size() <= slice.slot) labels.resize(slice.slot + 1);
    labels[slice.slot] = std::string(e.label);
  }
  void OnSample(const Event& e, const SampleContext& at) {
    std::vector<std::string> open;
    for (const Slice& region : at.regions) open.push_back(labels[region.slot]);
    samples.push_back(
        absl::StrFormat("%d thread%d [%s]", e.ticks, at.thread, absl::StrJoin(open, "/")));
  }
};

TEST(CpuSampleTest, TheTrackModelAttributesSamplesToTheOpenRegions) {
  const std::string trace = SampledTrace();
  Reader reader(MemorySource(trace));
  TrackModel model;
  SampleRecorder recorder;
  for (;;) {
    absl::StatusOr<const Event*> e = reader.Next();
    ASSERT_TRUE(e.ok()) << e.status();
    if (*e == nullptr) break;
    model.Add(**e, recorder);
  }
  // Thread indices in order of appearance: main 0, worker 1.
  EXPECT_EQ(recorder.samples,
            (std::vector<std::string>{"1250 thread1 []", "1300 thread0 [outer/inner]",
                                      "1500 thread0 [outer]"}));
}

// Runs the folded formatter over the trace.
std::string Folded(const std::string& trace, bool regions) {
  targets::FormatterOptions options;
  options.folded_regions = regions;
  absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
      targets::MakeFormatter("folded", options);
  EXPECT_TRUE(formatter.ok()) << formatter.status();
  Reader reader(MemorySource(trace));
  std::string out;
  for (;;) {
    absl::StatusOr<const Event*> e = reader.Next();
    EXPECT_TRUE(e.ok()) << e.status();
    if (!e.ok() || *e == nullptr) break;
    (*formatter)->Write(**e, &out);
  }
  (*formatter)->Finish(&out);
  return out;
}

TEST(CpuSampleTest, FoldedStacksSumTheWeights) {
  EXPECT_EQ(Folded(SampledTrace(), false),
            "main;outer_fn 2\n"
            "main;outer_fn;inner_fn 2\n");
  EXPECT_EQ(Folded(SampledTrace(), true),
            "main;outer_fn 1\n"
            "region:idx/outer;main;outer_fn 1\n"
            "region:idx/outer;region:idx/inner;main;outer_fn;inner_fn 2\n");
}

TEST(CpuSampleTest, FoldedFramesNameTheUnknownAndCleanSeparators) {
  SymbolFrame frame;
  frame.pc = 0x1234;
  EXPECT_EQ(targets::FoldedFrameName(frame), "0x1234");
  frame.module = "/usr/lib/libz.so.1";
  frame.module_offset = 0x40;
  EXPECT_EQ(targets::FoldedFrameName(frame), "libz.so.1+0x40");
  frame.func = "operator;weird\nname";
  EXPECT_EQ(targets::FoldedFrameName(frame), "operator_weird_name");
}

// A stack_ref before a sample still attaches to the thread's next event, not the sample.
TEST(CpuSampleTest, APendingStackRefWaitsAcrossASample) {
  GenBuilder g(1);
  const uint64_t error_stack = g.Stack({{0x10, g.S("report_error"), 0, 0}});
  const uint64_t sampled = g.Stack({{0x20, g.S("busy"), 0, 0}});
  g.Ev(0, E::kVersion, 1100, g.Site("main.c", 1), {g.S("1.0")});
  g.Raw(0, E::kStackRef, 1200, {error_stack});
  g.Raw(0, E::kCpuSample, 1210, {sampled, 1});
  g.Ev(0, E::kError, 1220, g.Site("main.c", 5), {g.S("boom"), 0});
  const std::string trace = Trace({g.Finish()});
  Reader reader(MemorySource(trace));
  std::vector<std::string> seen;
  for (;;) {
    absl::StatusOr<const Event*> e = reader.Next();
    ASSERT_TRUE(e.ok()) << e.status();
    if (*e == nullptr) break;
    seen.push_back(absl::StrCat(EventKindName((*e)->kind), ":", Functions((*e)->stack)));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"version:", "cpu_sample:busy", "error:report_error"}));
}

void ExpectError(const std::string& trace, const std::string& message) {
  const testing::ReadResult result = ReadAll(trace);
  EXPECT_EQ(result.status.code(), absl::StatusCode::kDataLoss) << result.status;
  EXPECT_EQ(std::string(result.status.message()), message);
}

TEST(CpuSampleTest, ASampleOfAnUnknownStackIsAnError) {
  GenBuilder g(1);
  g.Ev(0, E::kVersion, 1100, g.Site("main.c", 1), {g.S("1.0")});
  g.Raw(0, E::kCpuSample, 1200, {9, 1});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: cpu_sample "
                                     "stack ID 9 is not in the stack table",
                                     FindRecordOffset(trace, E::kCpuSample)));
}

TEST(CpuSampleTest, ZeroWeightsAndCountsAreErrors) {
  {
    GenBuilder g(1);
    const uint64_t stack = g.Stack({{0x20, 0, 0, 0}});
    g.Ev(0, E::kVersion, 1100, g.Site("main.c", 1), {g.S("1.0")});
    g.Raw(0, E::kCpuSample, 1200, {stack, 0});
    const std::string trace = Trace({g.Finish()});
    ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: "
                                       "cpu_sample weight is 0",
                                       FindRecordOffset(trace, E::kCpuSample)));
  }
  {
    GenBuilder g(1);
    g.Ev(0, E::kVersion, 1100, g.Site("main.c", 1), {g.S("1.0")});
    g.Raw(0, E::kCpuSamplesLost, 1200, {0});
    const std::string trace = Trace({g.Finish()});
    ExpectError(trace, absl::StrFormat("generation 1, thread 0, event 1: byte offset %d: "
                                       "cpu_samples_lost count is 0",
                                       FindRecordOffset(trace, E::kCpuSamplesLost)));
  }
}

TEST(CpuSampleTest, SamplesAfterThreadExitAreErrors) {
  GenBuilder g(1);
  const uint64_t stack = g.Stack({{0x20, 0, 0, 0}});
  g.Ev(0, E::kVersion, 1100, g.Site("main.c", 1), {g.S("1.0")});
  g.Ev(1, E::kThreadStart, 1150, g.Site("w.c", 3), {g.S("th01:w")});
  g.Ev(1, E::kThreadExit, 1200, g.Site("w.c", 4), {});
  g.Raw(1, E::kCpuSample, 1300, {stack, 1});
  const std::string trace = Trace({g.Finish()});
  ExpectError(trace, absl::StrFormat("generation 1, thread 1, event 2: byte offset %d: cpu_sample "
                                     "after thread_exit: thread_exit must be the thread's last "
                                     "event",
                                     FindRecordOffset(trace, E::kCpuSample)));
}

// A version 2 file (no sample rows) reads as before under a version 3 reader.
TEST(CpuSampleTest, VersionTwoTracesStillRead) {
  GenBuilder g(1);
  g.Ev(0, E::kVersion, 1100, g.Site("main.c", 1), {g.S("1.0")});
  g.Ev(0, E::kRegionEnter, 1200, g.Site("a.c", 7, "idx", "outer"), {0});
  g.Ev(0, E::kRegionLeave, 1300, g.Site("a.c", 7, "idx", "outer"), {0});
  const std::string trace = format::EncodeFileHeader(2) + g.Finish();
  const testing::ReadResult result = ReadAll(trace);
  EXPECT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.debug.size(), 3u);
}

}  // namespace
}  // namespace tracewire::reader

