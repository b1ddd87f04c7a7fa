// Reader benchmarks (Google Benchmark).
//
//   bazel run -c opt //tests/bench:reader_bench
//       BM_ReadTrace: decode + validate + merge throughput (events/s, bytes/s) on a
//       generated trace of 10 M events (written once to a temporary file).
//   TRACEWIRE_BENCH_BIG=1 bazel run -c opt //tests/bench:reader_bench --
//       --benchmark_filter=PeakRss
//       BM_PeakRss1GB: writes a >= 1 GB trace generation by generation, reads it in a
//       forked child and reports the child's peak RSS (getrusage ru_maxrss). Skipped
//       unless TRACEWIRE_BENCH_BIG=1.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "reader/parallel_decoding.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"
#include "tests/bench/synthetic_trace.h"

namespace tracewire {
namespace {

using bench::SyntheticTrace;

std::string TempPath(absl::string_view name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  if (dir == nullptr) dir = std::getenv("TMPDIR");
  if (dir == nullptr) dir = "/tmp";
  return absl::StrCat(dir, "/tracewire_reader_bench_", getpid(), "_", name);
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

struct TraceFile {
  std::string path;
  uint64_t events = 0;
  uint64_t bytes = 0;
};

// Trace variants of BM_ReadTrace.
enum Variant { kOneThread = 0, kFourThreadsBursty = 1, kFourThreadsInterleaved = 2 };

// The 10 M-event trace of `variant`, written once per process and removed at exit.
const TraceFile& TenMillionEvents(int variant) {
  static TraceFile* files[3] = {};
  if (files[variant] == nullptr) {
    auto* f = new TraceFile;
    f->path = TempPath(absl::StrCat("10M_", variant, ".twr"));
    SyntheticTrace synth(variant == kOneThread ? 1 : 4, /*events_per_generation=*/1'000'000,
                         /*bursty=*/variant == kFourThreadsBursty);
    f->events = synth.WriteFile(f->path, 10'000'000, 0);
    f->bytes = FileSize(f->path);
    files[variant] = f;
    static bool registered = false;
    if (!registered) {
      registered = true;
      std::atexit([] {
        for (TraceFile* file : files) {
          if (file != nullptr) unlink(file->path.c_str());
        }
      });
    }
  }
  return *files[variant];
}

// Reads the whole file; returns the number of events or -1 on error.
int64_t ReadAll(const std::string& path, reader::ReaderOptions options, std::string* error) {
  absl::StatusOr<std::unique_ptr<reader::Reader>> r = reader::Reader::OpenFile(path, options);
  if (!r.ok()) {
    *error = r.status().ToString();
    return -1;
  }
  int64_t n = 0;
  while (true) {
    absl::StatusOr<const reader::Event*> e = (*r)->Next();
    if (!e.ok()) {
      *error = e.status().ToString();
      return -1;
    }
    if (*e == nullptr) break;
    benchmark::DoNotOptimize(*e);
    ++n;
  }
  return n;
}

void BM_ReadTrace(benchmark::State& state) {
  const TraceFile& file = TenMillionEvents(static_cast<int>(state.range(0)));
  reader::ReaderOptions options;
  options.salvage = state.range(1) != 0;
  int64_t events = 0;
  for (auto _ : state) {
    std::string error;
    const int64_t n = ReadAll(file.path, options, &error);
    if (n < 0) {
      state.SkipWithError(error.c_str());
      return;
    }
    events += n;
  }
  state.SetBytesProcessed(static_cast<int64_t>(file.bytes) * state.iterations());
  state.SetItemsProcessed(events);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(file.events);
  state.counters["file_MB"] = static_cast<double>(file.bytes) / 1e6;
  state.counters["bytes_per_event"] =
      static_cast<double>(file.bytes) / static_cast<double>(file.events);
}
// trace: 0 = one thread, 1 = four bursty threads, 2 = four continuously interleaved threads.
BENCHMARK(BM_ReadTrace)
    ->ArgNames({"trace", "salvage"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Unit(benchmark::kMillisecond);  // rates per CPU second: per-core throughput

// A multi-generation trace for the parallel benchmark: 10 M events of one thread in
// generations of 200 000 events.
const TraceFile& MultiGeneration() {
  static TraceFile* file = [] {
    auto* f = new TraceFile;
    f->path = TempPath("10M_200k_generations.twr");
    SyntheticTrace synth(1, /*events_per_generation=*/200'000, /*bursty=*/false);
    f->events = synth.WriteFile(f->path, 10'000'000, 0);
    f->bytes = FileSize(f->path);
    std::atexit([] { unlink(MultiGeneration().path.c_str()); });
    return f;
  }();
  return *file;
}

// Work of the parallel benchmark: count the events (validate), or format them as git's
// EVENT JSON (decode).
class TextPayload : public reader::BlockPayload {
 public:
  size_t bytes() const override { return text.capacity(); }
  std::string text;
};
// Text buffers handed back after use (as `tracewire decode` recycles them: fresh memory
// costs a page fault per page).
class TextPayloads {
 public:
  std::unique_ptr<TextPayload> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return std::make_unique<TextPayload>();
    std::unique_ptr<TextPayload> payload = std::move(free_.back());
    free_.pop_back();
    return payload;
  }
  void Give(std::unique_ptr<TextPayload> payload) {
    payload->text.clear();
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(payload));
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<TextPayload>> free_;
};
class Work : public reader::GenerationWork {
 public:
  Work(bool format, TextPayloads* payloads)
      : formatter_(format ? *targets::MakeFormatter("event", {}) : nullptr),
        payloads_(payloads),
        payload_(payloads->Take()) {}
  ~Work() override { payloads_->Give(std::move(payload_)); }
  void Add(const reader::Event& event) override {
    if (formatter_ != nullptr) formatter_->Write(event, &payload_->text);
  }
  // Blocks of 1 MiB of text, as `tracewire decode` hands them over.
  bool BlockFull() const override { return payload_->text.size() >= (size_t{1} << 20); }
  std::unique_ptr<reader::BlockPayload> TakeBlock() override {
    return std::exchange(payload_, payloads_->Take());
  }

 private:
  std::unique_ptr<targets::Formatter> formatter_;
  TextPayloads* payloads_;
  std::unique_ptr<TextPayload> payload_;
};

// Reads the trace at `path` to the end with `options` as `tracewire validate` (count:
// SkipEvents) or `tracewire decode` (format: the events the reader hands back are
// formatted as EVENT JSON into one reused buffer) do, adding to `events` and to `output`
// (bytes of text). Returns false with `error` set when the read fails.
bool ReadAllEvents(const std::string& path, const reader::ReaderOptions& options, bool format,
                   uint64_t* events, uint64_t* output, std::string* error) {
  absl::StatusOr<std::unique_ptr<reader::Reader>> r = reader::Reader::OpenFile(path, options);
  if (!r.ok()) {
    *error = r.status().ToString();
    return false;
  }
  while (!format) {
    absl::string_view sid;
    absl::StatusOr<uint64_t> n = (*r)->SkipEvents(4096, &sid);
    if (!n.ok()) {
      *error = n.status().ToString();
      return false;
    }
    if (*n == 0) return true;
    *events += *n;
  }
  std::unique_ptr<targets::Formatter> formatter = *targets::MakeFormatter("event", {});
  std::string text;
  while (true) {
    absl::StatusOr<const reader::Event*> e = (*r)->Next();
    if (!e.ok()) {
      *error = e.status().ToString();
      return false;
    }
    if (*e == nullptr) break;
    ++*events;
    formatter->Write(**e, &text);
    if (text.size() >= (size_t{1} << 20)) {
      *output += text.size();
      text.clear();
    }
  }
  *output += text.size();
  return true;
}

// Parallel decoding across generations (reader/parallel_decoding.h) against a serial read
// of the same trace, with the same work per event; rates in real (wall) time.
void BM_ParallelRead(benchmark::State& state) {
  const int jobs = static_cast<int>(state.range(0));
  const bool format = state.range(1) != 0;
  const TraceFile& file = MultiGeneration();
  uint64_t events = 0;
  uint64_t output = 0;
  TextPayloads payloads;  // outlives the pools of the iterations
  for (auto _ : state) {
    // As `tracewire validate` (count) and `tracewire decode` (format) set the reader up.
    reader::ReaderOptions options;
    options.count_only = !format;
    if (jobs >= 2) {
      reader::ParallelOptions parallel;
      parallel.jobs = jobs;
      parallel.count_only = !format;
      parallel.make_work = [format, &payloads] {
        return std::make_unique<Work>(format, &payloads);
      };
      parallel.commit = [&](reader::CommittedBlock block) {
        events += block.events;
        if (block.payload != nullptr) {
          std::unique_ptr<TextPayload> text(static_cast<TextPayload*>(block.payload.release()));
          output += text->text.size();
          payloads.Give(std::move(text));
        }
      };
      parallel.max_block_bytes = size_t{32} << 20;
      parallel.split_generations = format;
      options.parallel = std::make_shared<reader::WorkerPool>(parallel);
    }
    std::string error;
    if (!ReadAllEvents(file.path, options, format, &events, &output, &error)) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["output_MB"] = static_cast<double>(output) / 1e6 / state.iterations();
  state.counters["generations"] = static_cast<double>(file.events) / 200'000;
}
BENCHMARK(BM_ParallelRead)
    ->ArgNames({"jobs", "format"})
    ->Args({1, 0})
    ->Args({2, 0})
    ->Args({1, 1})
    ->Args({2, 1})
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

// What two cores give on the same work when nothing is shared: two serial reads of the
// trace on two threads at once, rate = both reads' events per wall second. Its ratio to
// BM_ParallelRead/jobs:1 is the machine's ceiling for the parallel speed-up (on a VM the
// second vCPU may deliver less than the first).
void BM_TwoSerialReads(benchmark::State& state) {
  const bool format = state.range(0) != 0;
  const TraceFile& file = MultiGeneration();
  reader::ReaderOptions options;
  options.count_only = !format;
  uint64_t events[2] = {0, 0};
  uint64_t output[2] = {0, 0};
  std::string error[2];
  bool ok[2] = {true, true};
  for (auto _ : state) {
    std::thread other([&] {
      ok[1] = ReadAllEvents(file.path, options, format, &events[1], &output[1], &error[1]);
    });
    ok[0] = ReadAllEvents(file.path, options, format, &events[0], &output[0], &error[0]);
    other.join();
    for (int i = 0; i < 2; ++i) {
      if (!ok[i]) {
        state.SkipWithError(error[i].c_str());
        return;
      }
    }
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events[0] + events[1]), benchmark::Counter::kIsRate);
  state.counters["output_MB"] =
      static_cast<double>(output[0] + output[1]) / 1e6 / state.iterations();
}
BENCHMARK(BM_TwoSerialReads)
    ->ArgNames({"format"})
    ->Arg(0)
    ->Arg(1)
    ->UseRealTime()
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMillisecond);

void BM_PeakRss1GB(benchmark::State& state) {
  const char* big = std::getenv("TRACEWIRE_BENCH_BIG");
  if (big == nullptr || std::string(big) != "1") {
    state.SkipWithError("set TRACEWIRE_BENCH_BIG=1 to run (writes a 1 GB temporary file)");
    return;
  }
  const std::string path = TempPath("1GB.twr");
  // Write the file in a child so that the writer's memory cannot count.
  if (pid_t writer = fork(); writer == 0) {
    SyntheticTrace synth(/*threads=*/4, /*events_per_generation=*/1'000'000, /*bursty=*/true);
    synth.WriteFile(path, 0, uint64_t{1} << 30);
    _exit(0);
  } else {
    int status = 0;
    waitpid(writer, &status, 0);
  }
  const uint64_t bytes = FileSize(path);
  for (auto _ : state) {
    int fds[2];
    if (pipe(fds) != 0) std::abort();
    const pid_t child = fork();
    if (child == 0) {
      close(fds[0]);
      const absl::Time start = absl::Now();
      std::string error;
      const int64_t n = ReadAll(path, {}, &error);
      const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
      struct rusage usage;
      getrusage(RUSAGE_SELF, &usage);
      const double result[3] = {static_cast<double>(n), static_cast<double>(usage.ru_maxrss),
                                seconds};
      if (write(fds[1], result, sizeof(result)) != sizeof(result)) _exit(1);
      _exit(0);
    }
    close(fds[1]);
    double result[3] = {-1, 0, 0};
    if (read(fds[0], result, sizeof(result)) != sizeof(result)) result[0] = -1;
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (result[0] < 0) {
      state.SkipWithError("reading the 1 GB trace failed");
      break;
    }
    state.SetIterationTime(result[2]);
    state.counters["events"] = result[0];
    state.counters["peak_rss_MB"] = result[1] / 1024.0;  // ru_maxrss is in KiB
    state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
    state.counters["events_per_s"] = result[0] / result[2];
    state.counters["MB_per_s"] = static_cast<double>(bytes) / 1e6 / result[2];
  }
  unlink(path.c_str());
}
BENCHMARK(BM_PeakRss1GB)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace tracewire

BENCHMARK_MAIN();
