// Formatter::Skip keeps a formatter's state exactly as Write does: a stream of events cut
// into stripes and formatted by several formatters, each writing its own stripes (every
// `workers`-th one) and skipping the others', concatenates to what one formatter writes
// alone. `tracewire decode --jobs=N` relies on it. A context-free formatter's output does
// not depend on the events before it: blocks of events formatted by several formatters,
// reused in any order, concatenate to the serial output too. Every format, on every committed input
// of the reader's fuzz target (real traces: a git process tree, imported git traces, task
// and gauge workloads, CPU profiles; and hundreds of damaged ones, read strictly and with
// salvage), on a CPU-profiled run of a workload, on the benchmarks' multi-thread,
// multi-generation trace, and on built events long enough for the OTLP formatter's early
// lines (of closed spans and gauge samples). The real traces
// also run through a coarse clock (times floored to the millisecond): most events then
// share their time, and the formats that keep times strictly increasing per track (Chrome,
// Perfetto) must move each one the same way whether it was written or skipped.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"
#include "reader/targets/output_formats.h"
#include "tests/bench/synthetic_trace.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::targets {
namespace {

// Every output format (the registry's).
std::vector<std::string> AllFormats() {
  std::vector<std::string> names;
  for (const targets::OutputFormat& format : targets::OutputFormats()) {
    names.emplace_back(format.name);
  }
  return names;
}

std::unique_ptr<Formatter> Make(const std::string& format) {
  FormatterOptions options;
  options.folded_regions = true;  // the folded format's stateful variant
  options.event_nesting = 100;
  absl::StatusOr<std::unique_ptr<Formatter>> formatter = MakeFormatter(format, options);
  EXPECT_TRUE(formatter.ok()) << formatter.status();
  return std::move(*formatter);
}

// How the formatters see the events' times.
enum class Clock { kExact, kMilliseconds };

// A stream of events: each call returns the next one, null at the end, or an error.
using NextEvent = std::function<absl::StatusOr<const reader::Event*>()>;
// Makes a new stream of the input's events (from its start).
using EventStream = std::function<NextEvent()>;

EventStream TraceEvents(const std::string& trace, bool salvage) {
  return [&trace, salvage]() -> NextEvent {
    reader::ReaderOptions options;
    options.salvage = salvage;
    auto reader = std::make_shared<reader::Reader>(reader::MemorySource(trace, "t"), options);
    return [reader] { return reader->Next(); };
  };
}

EventStream BuiltEvents(const std::vector<reader::Event>& events) {
  return [&events]() -> NextEvent {
    auto next = std::make_shared<size_t>(0);
    return [&events, next]() -> absl::StatusOr<const reader::Event*> {
      return *next < events.size() ? &events[(*next)++] : nullptr;
    };
  };
}

// What `worker` of `workers` writes of `stream` in stripes of `stripe` events: its stripes'
// output, in order, each preceded by its number; and Finish's output after the last event if
// its stripe is the worker's. With workers = 1, the serial output. Stops at an error as
// `tracewire decode` does (no Finish). With Clock::kMilliseconds the formatter gets each
// event with its time floored to the millisecond.
std::vector<std::pair<uint64_t, std::string>> Stripes(const std::string& format,
                                                      const EventStream& stream, uint64_t stripe,
                                                      uint64_t workers, uint64_t worker,
                                                      Clock clock) {
  const NextEvent next = stream();
  std::unique_ptr<Formatter> formatter = Make(format);
  std::vector<std::pair<uint64_t, std::string>> out;
  uint64_t index = 0;
  bool ok = true;
  auto mine = [&](uint64_t i) { return (i / stripe) % workers == worker; };
  auto text = [&](uint64_t i) -> std::string* {
    if (out.empty() || out.back().first != i / stripe) out.emplace_back(i / stripe, "");
    return &out.back().second;
  };
  while (true) {
    absl::StatusOr<const reader::Event*> event = next();
    if (!event.ok()) {
      ok = false;
      break;
    }
    if (*event == nullptr) break;
    reader::Event coarse;
    const reader::Event* e = *event;
    if (clock == Clock::kMilliseconds) {
      coarse = **event;
      coarse.time =
          absl::UnixEpoch() + absl::Floor(coarse.time - absl::UnixEpoch(), absl::Milliseconds(1));
      e = &coarse;
    }
    if (mine(index)) {
      formatter->Write(*e, text(index));
    } else {
      formatter->Skip(*e);
    }
    ++index;
  }
  if (ok && mine(index)) formatter->Finish(text(index));
  return out;
}

std::string Concatenated(const std::string& format, const EventStream& stream, uint64_t stripe,
                         uint64_t workers, Clock clock) {
  std::vector<std::vector<std::pair<uint64_t, std::string>>> parts;
  for (uint64_t w = 0; w < workers; ++w) {
    parts.push_back(Stripes(format, stream, stripe, workers, w, clock));
  }
  std::string all;
  std::vector<size_t> next(workers, 0);
  for (uint64_t s = 0;; ++s) {
    auto& mine = parts[s % workers];
    size_t& i = next[s % workers];
    if (i < mine.size() && mine[i].first == s) {
      all += mine[i++].second;
      continue;
    }
    bool more = false;
    for (uint64_t w = 0; w < workers; ++w) more |= next[w] < parts[w].size();
    if (!more) break;
  }
  return all;
}

// A context-free format as `tracewire decode --jobs=N` writes it in blocks
// (tools/commands/decode_blocks.h): blocks of `block` events, each formatted by one of
// three formatters, reused out of order, their text concatenated; Finish writes nothing.
std::string FormattedInBlocks(const std::string& format, const EventStream& stream, uint64_t block,
                              Clock clock) {
  const NextEvent next = stream();
  std::vector<std::unique_ptr<Formatter>> formatters;
  for (int i = 0; i < 3; ++i) formatters.push_back(Make(format));
  std::string all;
  for (uint64_t index = 0;; ++index) {
    absl::StatusOr<const reader::Event*> event = next();
    if (!event.ok() || *event == nullptr) break;
    reader::Event coarse = **event;
    if (clock == Clock::kMilliseconds) {
      coarse.time =
          absl::UnixEpoch() + absl::Floor(coarse.time - absl::UnixEpoch(), absl::Milliseconds(1));
    }
    const uint64_t b = index / block;
    formatters[(b * b + b / 2) % formatters.size()]->Write(coarse, &all);
  }
  for (const std::unique_ptr<Formatter>& formatter : formatters) {
    std::string finished;
    formatter->Finish(&finished);
    EXPECT_EQ(finished, "") << format;
  }
  return all;
}

void ExpectStreamStripesMatch(const std::string& name, const std::string& format,
                              const EventStream& stream, const std::vector<uint64_t>& stripes,
                              Clock clock = Clock::kExact) {
  const std::string serial = Concatenated(format, stream, ~uint64_t{0} / 2, 1, clock);
  if (Make(format)->context_free()) {
    for (const uint64_t block : stripes) {
      const std::string blocks = FormattedInBlocks(format, stream, block, clock);
      ASSERT_EQ(blocks.size(), serial.size()) << name << " " << format << ", blocks of " << block;
      ASSERT_TRUE(blocks == serial) << name << " " << format << ", blocks of " << block;
    }
  }
  for (const uint64_t stripe : stripes) {
    for (const uint64_t workers : {2, 3}) {
      const std::string striped = Concatenated(format, stream, stripe, workers, clock);
      ASSERT_EQ(striped.size(), serial.size())
          << name << " " << format << ", stripes of " << stripe << " on " << workers << " workers";
      ASSERT_TRUE(striped == serial)
          << name << " " << format << ", stripes of " << stripe << " on " << workers << " workers";
    }
  }
}

// Every format of `formats` (default: all), with and without salvage.
void ExpectStripesMatch(const std::string& name, const std::string& trace,
                        const std::vector<uint64_t>& stripes, Clock clock = Clock::kExact,
                        const std::vector<std::string>& formats = AllFormats()) {
  const std::string clock_name = clock == Clock::kExact ? "" : " (millisecond clock)";
  for (const std::string& format : formats) {
    for (const bool salvage : {false, true}) {
      ExpectStreamStripesMatch(name + clock_name + (salvage ? " --salvage" : ""), format,
                               TraceEvents(trace, salvage), stripes, clock);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// The corpus tests run once per format (a test per format, so that the test's shards
// share the work).
class FormatterSkipCorpusTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FormatterSkipCorpusTest, FuzzCorpus) {
  int inputs = 0;
  for (const char* dir : {"tests/fuzz/corpus/reader", "tests/fuzz/regressions/reader"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      ExpectStripesMatch(entry.path().string(), ReadFile(entry.path()), {1, 3, 17},
                         Clock::kExact, {GetParam()});
      if (HasFatalFailure()) return;
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 500);
}

// The real traces of the corpus (named after what they hold; the damaged ones are named by
// hash) with a coarse clock.
TEST_P(FormatterSkipCorpusTest, FuzzCorpusMillisecondClock) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus/reader")) {
    const std::string name = entry.path().filename().string();
    const bool hash = name.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!entry.is_regular_file() || hash) continue;
    ExpectStripesMatch(entry.path().string(), ReadFile(entry.path()), {1, 3, 17},
                       Clock::kMilliseconds, {GetParam()});
    if (HasFatalFailure()) return;
    ++inputs;
  }
  EXPECT_GT(inputs, 30);
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, FormatterSkipCorpusTest, ::testing::ValuesIn(AllFormats()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// A real CPU profile (two threads sampled at 2 kHz of CPU time inside regions whose enters
// and leaves carry stacks, in 20 ms generations): Chrome's profiles and stack frames and the
// folded counts are built from the written and the skipped events alike.
TEST(FormatterSkipTest, CpuProfiledWorkload) {
  const std::string path = cli_test::NewTempDir("cpu_workload") + "/trace.twr";
  cli_test::RunOptions options;
  options.env = {{"TRACEWIRE", path},
                 {"TRACEWIRE_CPU_PROFILE", "2000"},
                 {"TRACEWIRE_GENERATION_MS", "20"},
                 {"TRACEWIRE_STACKS", "region_enter,region_leave"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  ASSERT_EQ(cli_test::RunCommand({cli_test::Runfile("tests/viewers/cpu_workload"), "0.05"}, options)
                .exit_code,
            0);
  const std::string trace = ReadFile(path);
  // Samples of both threads, each under its region: several folded stacks.
  const std::string folded =
      Concatenated("folded", TraceEvents(trace, false), ~uint64_t{0} / 2, 1, Clock::kExact);
  EXPECT_GE(std::count(folded.begin(), folded.end(), '\n'), 2) << folded;
  ExpectStripesMatch(path, trace, {1, 7});
}

TEST(FormatterSkipTest, MultiThreadMultiGenerationTrace) {
  const bench::SyntheticTrace synth(/*threads=*/3, /*events_per_generation=*/2000,
                                    /*bursty=*/true);
  const std::string path = testing::TempDir() + "/synthetic.twr";
  synth.WriteFile(path, /*min_events=*/24000, /*min_bytes=*/0);
  const std::string trace = ReadFile(path);
  ExpectStripesMatch("synthetic", trace, {1000, 4096});
}

// Two processes, each with a worker thread, writing regions (with data inside), gauge
// samples, errors, timers, counters and tasks, interleaved: more than 10000 closed
// regions and gauge samples per process, so that the OTLP formatter writes lines of a
// process before it ends (and on Finish, for the one still open).
TEST(FormatterSkipTest, LongProcessesWithEarlyLines) {
  constexpr int kRounds = 22000;
  const absl::Time start = absl::FromUnixSeconds(1795312805);
  const absl::string_view sids[] = {"20261122T020005.811933Z-H0a7c9cdf-P00001c73",
                                    "20261122T020005.811933Z-H0a7c9cdf-P00001c80"};
  const absl::string_view threads[] = {"main", "th01:worker"};
  std::vector<reader::Event> events;
  int64_t tick = 0;
  auto add = [&](int process, int thread, reader::EventKind kind) -> reader::Event& {
    reader::Event& e = events.emplace_back();
    e.kind = kind;
    e.sid = sids[process];
    e.thread_id = thread;
    e.thread_name = threads[thread];
    e.time = start + absl::Microseconds(++tick);
    e.category = "bench";
    return e;
  };
  for (int p = 0; p < 2; ++p) {
    add(p, 0, reader::EventKind::kVersion).exe = "2.55.0";
    add(p, 0, reader::EventKind::kStart).argv = {"git", "status"};
    add(p, 0, reader::EventKind::kCmdName).cmd_name = "status";
    add(p, 1, reader::EventKind::kThreadStart);
  }
  for (int i = 0; i < kRounds; ++i) {
    const int p = i % 2;
    const int t = (i / 2) % 2;
    const absl::string_view label = i % 3 == 0 ? "scan" : "refresh";
    reader::Event& enter = add(p, t, reader::EventKind::kRegionEnter);
    enter.label = label;
    enter.repo = 1;
    if (i % 5 == 0) enter.msg = "a message";
    reader::Event& data = add(p, t, reader::EventKind::kData);
    data.nesting = 2;
    data.label = i % 4 == 0 ? "count" : "size";
    data.value_string = i % 4 == 0 ? "17" : "big";
    reader::Event& gauge = add(p, t, reader::EventKind::kGauge);
    gauge.nesting = 2;  // inside the region
    gauge.label = i % 7 == 0 ? "queue" : "memory";
    gauge.unit = "bytes";
    gauge.value_int = i;
    // A gauge sample of the other process too, so that each holds more than 10000.
    add(1 - p, 0, reader::EventKind::kGauge).label = "memory";
    add(p, t, reader::EventKind::kRegionLeave).label = label;
    if (i % 97 == 0) {
      reader::Event& error = add(p, t, reader::EventKind::kError);
      error.msg = "failed";
      error.fmt = "failed";
    }
    if (i % 501 == 0) {
      reader::Event& timer = add(p, t, reader::EventKind::kThTimer);
      timer.label = "lstat";
      timer.intervals = i;
      timer.t_total = 0.5;
      add(p, 0, reader::EventKind::kCounter).count = i;
    }
    if (i % 300 == 0) add(p, t, reader::EventKind::kTaskBegin).task_id = 1 + i;
    if (i % 300 == 150) add(p, t, reader::EventKind::kTaskEnd).task_id = 1 + i - 150;
  }
  // The first process ends; the second is still open at the end of the input.
  add(0, 1, reader::EventKind::kThreadExit);
  add(0, 0, reader::EventKind::kExit);
  add(0, 0, reader::EventKind::kAtexit);
  for (const std::string& format : AllFormats()) {
    ExpectStreamStripesMatch("built events", format, BuiltEvents(events), {1, 700, 5000});
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace tracewire::targets
