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
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "format/event_spec.h"
#include "format/file_header.h"
#include "format/generation_encoder.h"
#include "format/record_encoder.h"
#include "format/varint.h"
#include "reader/reader.h"

namespace tracewire {
namespace {

using format::EventType;

// A synthetic multi-threaded trace: every thread repeats "region_enter, data_int, data,
// data_int, region_leave" with deltas of 1..100 ticks (1 ns each), restates itself with
// thread_status at the start of each generation, and closes its regions within the
// generation. The batch bodies are encoded once and reused by every generation (only the
// batch headers and the per-generation tables change), so that a 1 GB file is quick to make.
class SyntheticTrace {
 public:
  // With `bursty`, a thread pauses 20-40 us after about one group in eight, so threads
  // emit in bursts (as Trace2 workers do); without it all threads emit continuously and
  // the merge switches threads at almost every event (the worst case).
  SyntheticTrace(int threads, uint64_t events_per_generation, bool bursty)
      : threads_(threads), events_per_thread_(events_per_generation / threads) {
    format::GenerationEncoder ids(1);
    Intern(ids);
    std::mt19937 rng(42);
    for (int t = 0; t < threads_; ++t) {
      std::vector<Body>& bodies = bodies_.emplace_back();
      Body* body = &bodies.emplace_back();
      uint64_t events = 0;
      Append(body, EventType::kThreadStatus, {1, name_ids_[t], 1});
      uint64_t i = 0;
      while (events < events_per_thread_) {
        if (body->bytes.size() > 60000) body = &bodies.emplace_back();
        auto dt = [&] { return 1 + rng() % 100; };
        const uint64_t region = region_sites_[i % region_sites_.size()];
        const uint64_t pause = bursty && rng() % 8 == 0 ? 20000 + rng() % 20000 : 0;
        Append(body, EventType::kRegionEnter, {dt() + pause, region, 0});
        Append(body, EventType::kDataInt, {dt(), int_site_, format::ZigzagEncode(i % 5000)});
        Append(body, EventType::kData, {dt(), str_site_, value_id_});
        Append(body, EventType::kDataInt, {dt(), int_site_, format::ZigzagEncode(-7)});
        Append(body, EventType::kRegionLeave, {dt(), region, 0});
        events += 5;
        ++i;
      }
      for (const Body& b : bodies) {
        span_ = std::max(span_, b.duration);
        events_ += b.events;
      }
    }
    uint64_t max_thread = 0;
    for (const auto& bodies : bodies_) {
      uint64_t total = 0;
      for (const Body& b : bodies) total += b.duration;
      max_thread = std::max(max_thread, total);
    }
    span_ = max_thread + 1000;
  }

  // Timed events per generation (thread_status included).
  uint64_t events_per_generation() const { return events_; }

  // Appends generation `gen` (1, 2, ...) to *out.
  void AppendGeneration(uint64_t gen, std::string* out) const {
    format::GenerationEncoder enc(gen);
    Intern(enc);
    const uint64_t start = 1000 + (gen - 1) * span_;
    format::ClockSync sync;
    sync.trace_time = start;
    sync.mono_ns = start;
    sync.wall_sec = 1767225600 + start / 1000000000;
    sync.wall_nsec = start % 1000000000;
    enc.SetClockSync(sync);
    format::ProcessInfo info;
    info.sid = "20260101T000000.000000Z-H00000000-P00000001";
    info.pid = 1;
    info.start_time = 1;
    info.name = "bench";
    enc.SetProcessInfo(info);
    std::string batches;
    for (int t = 0; t < threads_; ++t) {
      uint64_t base = start + t;
      for (const Body& b : bodies_[t]) {
        batches.push_back(static_cast<char>(EventType::kEventBatch));
        format::AppendUvarint(&batches, gen);
        format::AppendUvarint(&batches, t);
        format::AppendUvarint(&batches, base);
        format::AppendUvarint(&batches, b.bytes.size());
        batches += b.bytes;
        base += b.duration;
      }
    }
    enc.AddEncodedBatches(batches);
    if (!enc.Finish(out).ok()) std::abort();
  }

  // Writes a trace of at least `min_events` events or `min_bytes` bytes to `path`, one
  // generation at a time. Returns the number of events.
  uint64_t WriteFile(const std::string& path, uint64_t min_events, uint64_t min_bytes) const {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) std::abort();
    std::string buf = format::EncodeFileHeader(format::kFormatVersion);
    uint64_t events = 0, bytes = 0;
    for (uint64_t gen = 1; events < min_events || bytes < min_bytes; ++gen) {
      AppendGeneration(gen, &buf);
      if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) std::abort();
      bytes += buf.size();
      buf.clear();
      events += events_;
    }
    std::fclose(f);
    return events;
  }

 private:
  struct Body {
    std::string bytes;
    uint64_t duration = 0;  // sum of the dts
    uint64_t events = 0;
  };

  void Intern(format::GenerationEncoder& enc) const {
    // Same order in every generation, so the IDs the bodies use stay valid.
    auto* self = const_cast<SyntheticTrace*>(this);
    self->name_ids_.clear();
    for (int t = 0; t < threads_; ++t) {
      self->name_ids_.push_back(enc.String(t == 0 ? "main" : absl::StrCat("th", t, ":worker")));
    }
    self->value_id_ = enc.String("some value");
    self->region_sites_.clear();
    for (const char* label : {"read_index", "preload", "scan", "refresh"}) {
      format::Site site;
      site.file = "bench.c";
      site.line = 10;
      site.category = "bench";
      site.label = label;
      site.repo = 2;
      self->region_sites_.push_back(enc.InternSite(site));
    }
    format::Site data_site;
    data_site.file = "bench.c";
    data_site.line = 20;
    data_site.category = "bench";
    data_site.label = "count";
    self->int_site_ = enc.InternSite(data_site);
    data_site.label = "name";
    self->str_site_ = enc.InternSite(data_site);
  }

  static void Append(Body* body, EventType type, std::initializer_list<uint64_t> args) {
    const std::vector<uint64_t> all(args);
    if (!format::AppendRecord(&body->bytes, type, all).ok()) std::abort();
    body->duration += all[0];
    ++body->events;
  }

  int threads_;
  uint64_t events_per_thread_;
  uint64_t events_ = 0;
  uint64_t span_ = 0;
  std::vector<std::vector<Body>> bodies_;
  std::vector<uint64_t> name_ids_;
  uint64_t value_id_ = 0;
  std::vector<uint64_t> region_sites_;
  uint64_t int_site_ = 0;
  uint64_t str_site_ = 0;
};

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
