// Formatter::Skip keeps a formatter's state exactly as Write does: a stream of events cut
// into stripes and formatted by several formatters, each writing its own stripes (every
// `workers`-th one) and skipping the others', concatenates to what one formatter writes
// alone. `tracewire decode --jobs=N` relies on it. Every format, on every committed input
// of the reader's fuzz target (real traces: a git process tree, imported git traces, task
// and gauge workloads, CPU profiles; and hundreds of damaged ones, read strictly and with
// salvage), on a CPU-profiled run of a workload, and on the benchmarks' multi-thread,
// multi-generation trace. The real traces
// also run through a coarse clock (times floored to the millisecond): most events then
// share their time, and the formats that keep times strictly increasing per track (Chrome,
// Perfetto) must move each one the same way whether it was written or skipped.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
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
#include "tests/bench/synthetic_trace.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::targets {
namespace {

constexpr const char* kFormats[] = {"event", "perf",     "normal", "chrome",
                                    "otlp",  "perfetto", "folded"};

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

// What `worker` of `workers` writes of `trace` in stripes of `stripe` events: its stripes'
// output, in order, each preceded by its number; and Finish's output after the last event if
// its stripe is the worker's. With workers = 1, the serial output. Stops at an error as
// `tracewire decode` does (no Finish). With Clock::kMilliseconds the formatter gets each
// event with its time floored to the millisecond.
std::vector<std::pair<uint64_t, std::string>> Stripes(const std::string& format,
                                                      const std::string& trace, bool salvage,
                                                      uint64_t stripe, uint64_t workers,
                                                      uint64_t worker, Clock clock) {
  reader::ReaderOptions options;
  options.salvage = salvage;
  reader::Reader reader(reader::MemorySource(trace, "t"), options);
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
    absl::StatusOr<const reader::Event*> event = reader.Next();
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

std::string Concatenated(const std::string& format, const std::string& trace, bool salvage,
                         uint64_t stripe, uint64_t workers, Clock clock) {
  std::vector<std::vector<std::pair<uint64_t, std::string>>> parts;
  for (uint64_t w = 0; w < workers; ++w) {
    parts.push_back(Stripes(format, trace, salvage, stripe, workers, w, clock));
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

void ExpectStripesMatch(const std::string& name, const std::string& trace,
                        const std::vector<uint64_t>& stripes, Clock clock = Clock::kExact) {
  const char* clock_name = clock == Clock::kExact ? "" : " (millisecond clock)";
  for (const char* format : kFormats) {
    for (const bool salvage : {false, true}) {
      const std::string serial = Concatenated(format, trace, salvage, ~uint64_t{0} / 2, 1, clock);
      for (const uint64_t stripe : stripes) {
        for (const uint64_t workers : {2, 3}) {
          const std::string striped = Concatenated(format, trace, salvage, stripe, workers, clock);
          ASSERT_EQ(striped.size(), serial.size())
              << name << clock_name << " " << format << (salvage ? " --salvage" : "")
              << ", stripes of " << stripe << " on " << workers << " workers";
          ASSERT_TRUE(striped == serial)
              << name << clock_name << " " << format << (salvage ? " --salvage" : "")
              << ", stripes of " << stripe << " on " << workers << " workers";
        }
      }
    }
  }
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(FormatterSkipTest, FuzzCorpus) {
  int inputs = 0;
  for (const char* dir : {"tests/fuzz/corpus/reader", "tests/fuzz/regressions/reader"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      ExpectStripesMatch(entry.path().string(), ReadFile(entry.path()), {1, 3, 17});
      if (HasFatalFailure()) return;
      ++inputs;
    }
  }
  EXPECT_GT(inputs, 500);
}

// The real traces of the corpus (named after what they hold; the damaged ones are named by
// hash) with a coarse clock.
TEST(FormatterSkipTest, FuzzCorpusMillisecondClock) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/corpus/reader")) {
    const std::string name = entry.path().filename().string();
    const bool hash = name.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!entry.is_regular_file() || hash) continue;
    ExpectStripesMatch(entry.path().string(), ReadFile(entry.path()), {1, 3, 17},
                       Clock::kMilliseconds);
    if (HasFatalFailure()) return;
    ++inputs;
  }
  EXPECT_GT(inputs, 30);
}

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
      Concatenated("folded", trace, false, ~uint64_t{0} / 2, 1, Clock::kExact);
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

}  // namespace
}  // namespace tracewire::targets
