// //tests/bench:targets_bench — output throughput (MB of output per second) of git's
// EVENT, PERF and NORMAL targets over a realistic event mix. The events are built once
// (a git-status-like session of ~40 events with regions up to nesting 3, data, data_json,
// children, a worker thread, printf, error, timers and counters, repeated with advancing
// times); each iteration formats all of them into one reused std::string.
//
// BM_Stateful/<format>_{write,skip}: what Formatter::Skip costs against Write for the
// stateful formatters (a worker of a parallel decode skips the other workers' stripes),
// each iteration a new formatter over the mix, writing or skipping every event, then
// Finish. BM_Trace/...: the same over a synthetic trace read from memory (2 interleaved
// threads of "region_enter, data_int, data, data_int, region_leave", as
// `make_bench_trace --threads=2` writes), with BM_Trace/read_only the reader alone and
// BM_Trace/track_model the reader and the track model every stateful formatter keeps: a
// format's Skip/Write ratio is (skip - read_only) / (write - read_only). With
// TRACEWIRE_BENCH_TRACE=<file>, BM_Trace reads that trace instead (read into memory once).
//   bazel run -c opt //tests/bench:targets_bench
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "reader/byte_source.h"
#include "reader/event.h"
#include "reader/reader.h"
#include "reader/targets/formatter.h"
#include "reader/track_model.h"
#include "tests/bench/synthetic_trace.h"

namespace {

using tracewire::reader::Event;
using tracewire::reader::EventKind;
using tracewire::reader::ValueKind;
using tracewire::targets::FormatterOptions;

constexpr int kRepeats = 500;

// The mix: owns nothing but string literals and `storage` (views point into them).
struct Mix {
  std::vector<Event> events;
  std::vector<std::unique_ptr<std::string>> storage;
};

const Mix& TheMix() {
  static const Mix* mix = [] {
    auto* m = new Mix;
    const absl::Time start =
        absl::FromCivil(absl::CivilSecond(2026, 11, 22, 1, 59, 55), absl::UTCTimeZone());
    double t = 0;
    for (int r = 0; r < kRepeats; ++r) {
      m->storage.push_back(std::make_unique<std::string>(
          absl::StrCat("20261122T015955.975172Z-H0a7c9cdf-P", 10000 + r)));
      const absl::string_view sid = *m->storage.back();
      auto add = [&](EventKind kind, absl::string_view file, int line, int nesting) -> Event& {
        Event& e = m->events.emplace_back();
        t += 0.000037;
        e.kind = kind;
        e.sid = sid;
        e.depth = r % 3;
        e.thread_name = "main";
        e.time = start + absl::Microseconds(static_cast<int64_t>(t * 1e6));
        e.utc_offset_sec = 3600;
        e.file = file;
        e.line = line;
        e.t_abs = t;
        e.nesting = nesting;
        return e;
      };
      add(EventKind::kVersion, "common-main.c", 50, 1).exe = "2.55.0";
      add(EventKind::kStart, "common-main.c", 51, 1).argv = {"git", "status", "--porcelain=v2",
                                                             "--branch"};
      {
        Event& e = add(EventKind::kCmdName, "git.c", 464, 1);
        e.cmd_name = "status";
        e.cmd_hierarchy = "status";
      }
      for (auto [param, value] :
           {std::pair{"core.fsmonitor", "false"}, std::pair{"core.untrackedcache", "true"},
            std::pair{"MYVAR", "some value"}}) {
        Event& e = add(EventKind::kDefParam, "config.c", 2312, 1);
        e.param_scope = "global";
        e.param = param;
        e.param_value = value;
      }
      {
        Event& e = add(EventKind::kDefRepo, "repository.c", 146, 1);
        e.repo = 1;
        e.worktree = "/home/user/src/project";
      }
      for (int i = 0; i < 3; ++i) {
        {
          Event& e = add(EventKind::kRegionEnter, "read-cache.c", 2443, 1);
          e.repo = 1;
          e.category = "index";
          e.label = "do_read_index";
          e.msg = ".git/index";
        }
        {
          Event& e = add(EventKind::kData, "read-cache.c", 2391, 2);
          e.repo = 1;
          e.t_rel = 0.000089;
          e.category = "index";
          e.label = "read/cache_nr";
          e.value_kind = ValueKind::kInt;
          e.value_int = 3121;
          e.value_string = "3121";
        }
        {
          Event& e = add(EventKind::kRegionEnter, "preload-index.c", 140, 2);
          e.repo = 1;
          e.category = "index";
          e.label = "preload";
        }
        {
          Event& e = add(EventKind::kData, "preload-index.c", 155, 3);
          e.repo = 1;
          e.t_rel = 0.000152;
          e.category = "index";
          e.label = "preload/sum_lstat";
          e.value_kind = ValueKind::kInt;
          e.value_int = 3121;
          e.value_string = "3121";
        }
        {
          Event& e = add(EventKind::kRegionLeave, "preload-index.c", 162, 2);
          e.repo = 1;
          e.t_rel = 0.000950;
          e.category = "index";
          e.label = "preload";
        }
        {
          Event& e = add(EventKind::kRegionLeave, "read-cache.c", 2448, 1);
          e.repo = 1;
          e.t_rel = 0.001411;
          e.category = "index";
          e.label = "do_read_index";
          e.msg = ".git/index";
        }
      }
      {
        Event& e = add(EventKind::kData, "wt-status.c", 1634, 1);
        e.repo = 1;
        e.t_rel = t;
        e.category = "status";
        e.label = "count/changed";
        e.value_string = "a modified \"file\" name\twith tab";
      }
      {
        Event& e = add(EventKind::kDataJson, "tree-walk.c", 1254, 1);
        e.repo = 1;
        e.t_rel = t;
        e.category = "traverse_trees";
        e.label = "statistics";
        e.value_kind = ValueKind::kJson;
        e.value_string = R"({"traverse_trees_count":1,"traverse_trees_max_depth":1})";
      }
      {
        Event& e = add(EventKind::kChildStart, "run-command.c", 733, 1);
        e.child_id = 0;
        e.child_class = "hook";
        e.hook_name = "post-index-change";
        e.argv = {".git/hooks/post-index-change", "1", "0"};
      }
      {
        Event& e = add(EventKind::kChildExit, "run-command.c", 988, 1);
        e.child_id = 0;
        e.pid = 31583;
        e.t_rel = 0.004513;
      }
      {
        Event& e = add(EventKind::kThreadStart, "preload-index.c", 98, 1);
        e.thread_name = "th01:preload_thread";
      }
      {
        Event& e = add(EventKind::kThTimer, "", 0, 1);
        e.thread_name = "th01:preload_thread";
        e.category = "index";
        e.label = "lstat";
        e.intervals = 1040;
        e.t_total = 0.002140;
        e.t_min = 0.000001;
        e.t_max = 0.000024;
      }
      {
        Event& e = add(EventKind::kThreadExit, "preload-index.c", 120, 1);
        e.thread_name = "th01:preload_thread";
        e.t_rel = 0.002513;
      }
      add(EventKind::kPrintf, "wt-status.c", 2001, 1).msg = "summary: 3 changed, 1 untracked";
      {
        Event& e = add(EventKind::kError, "builtin/status.c", 640, 1);
        e.msg = "unable to read 'sub/file.c'";
        e.fmt = "unable to read '%s'";
      }
      add(EventKind::kExit, "git.c", 721, 1).code = 0;
      {
        Event& e = add(EventKind::kTimer, "", 0, 1);
        e.category = "index";
        e.label = "lstat";
        e.intervals = 3121;
        e.t_total = 0.006420;
        e.t_min = 0.000001;
        e.t_max = 0.000031;
      }
      {
        Event& e = add(EventKind::kCounter, "", 0, 1);
        e.category = "index";
        e.label = "fsync/writeout-only";
        e.count = 2;
      }
      add(EventKind::kAtexit, "", 0, 1).code = 0;
    }
    return m;
  }();
  return *mix;
}

void Run(benchmark::State& state, absl::string_view name, FormatterOptions options) {
  const Mix& mix = TheMix();
  auto formatter = tracewire::targets::MakeFormatter(name, options);
  if (!formatter.ok()) {
    state.SkipWithError("MakeFormatter failed");
    return;
  }
  std::string out;
  size_t bytes = 0;
  for (auto _ : state) {
    out.clear();
    for (const Event& e : mix.events) (*formatter)->Write(e, &out);
    bytes += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * mix.events.size()));
  state.counters["bytes/event"] =
      static_cast<double>(out.size()) / static_cast<double>(mix.events.size());
}

FormatterOptions Options(bool brief, int nesting = 100) {
  FormatterOptions options;
  options.brief = brief;
  options.event_nesting = nesting;
  return options;
}

void BM_Event(benchmark::State& state) { Run(state, "event", Options(false)); }
void BM_EventBrief(benchmark::State& state) { Run(state, "event", Options(true)); }
void BM_EventDefaultNesting(benchmark::State& state) { Run(state, "event", Options(false, 2)); }
void BM_Perf(benchmark::State& state) { Run(state, "perf", Options(false)); }
void BM_PerfBrief(benchmark::State& state) { Run(state, "perf", Options(true)); }
void BM_Normal(benchmark::State& state) { Run(state, "normal", Options(false)); }
void BM_NormalBrief(benchmark::State& state) { Run(state, "normal", Options(true)); }

// Writes (or with `skip`, skips) every event of the mix with a new `name` formatter, then
// calls Finish.
void BM_Stateful(benchmark::State& state, const char* name, bool skip) {
  const Mix& mix = TheMix();
  std::string out;
  size_t bytes = 0;
  for (auto _ : state) {
    auto formatter = tracewire::targets::MakeFormatter(name, Options(false));
    if (!formatter.ok()) {
      state.SkipWithError("MakeFormatter failed");
      return;
    }
    out.clear();
    for (const Event& e : mix.events) {
      if (skip) {
        (*formatter)->Skip(e);
      } else {
        (*formatter)->Write(e, &out);
      }
    }
    (*formatter)->Finish(&out);
    bytes += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * mix.events.size()));
}

// The synthetic trace: 2 threads interleaved at every event, 2 generations of 150000; or
// the file TRACEWIRE_BENCH_TRACE names.
const std::string& SyntheticTraceBytes() {
  static const std::string* bytes = []() -> const std::string* {
    if (const char* path = std::getenv("TRACEWIRE_BENCH_TRACE"); path != nullptr) {
      std::ifstream in(path, std::ios::binary);
      std::ostringstream contents;
      contents << in.rdbuf();
      return new std::string(contents.str());
    }
    const tracewire::bench::SyntheticTrace synth(/*threads=*/2,
                                                 /*events_per_generation=*/150'000,
                                                 /*bursty=*/false);
    auto* trace =
        new std::string(tracewire::format::EncodeFileHeader(tracewire::format::kFormatVersion));
    for (uint64_t gen = 1; gen <= 2; ++gen) synth.AppendGeneration(gen, trace);
    return trace;
  }();
  return *bytes;
}

// What BM_Trace does with each event it reads.
enum class TraceWork { kReadOnly, kTrackModel, kWrite, kSkip };

// Reads the synthetic trace and, per `work`, does nothing more, feeds the events to a
// track model (reader/track_model.h, the state under every stateful formatter) that reports
// to no listener, or writes or skips them with a new `name` formatter (then calls Finish).
void BM_Trace(benchmark::State& state, const char* name, TraceWork work) {
  const std::string& trace = SyntheticTraceBytes();
  std::string out;
  size_t bytes = 0;
  uint64_t events = 0;
  for (auto _ : state) {
    std::unique_ptr<tracewire::targets::Formatter> formatter;
    if (name != nullptr) {
      auto made = tracewire::targets::MakeFormatter(name, Options(false));
      if (!made.ok()) {
        state.SkipWithError("MakeFormatter failed");
        return;
      }
      formatter = std::move(*made);
    }
    tracewire::reader::TrackModel model;
    tracewire::reader::TrackListener no_listener;
    tracewire::reader::Reader reader(tracewire::reader::MemorySource(trace, "bench"),
                                     tracewire::reader::ReaderOptions());
    out.clear();
    while (true) {
      absl::StatusOr<const Event*> event = reader.Next();
      if (!event.ok()) {
        state.SkipWithError("the trace does not read");
        return;
      }
      if (*event == nullptr) break;
      ++events;
      switch (work) {
        case TraceWork::kReadOnly:
          benchmark::DoNotOptimize(*event);
          break;
        case TraceWork::kTrackModel:
          model.Add(**event, no_listener);
          break;
        case TraceWork::kWrite:
          formatter->Write(**event, &out);
          break;
        case TraceWork::kSkip:
          formatter->Skip(**event);
          break;
      }
    }
    if (formatter != nullptr) formatter->Finish(&out);
    bytes += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(events));
}

BENCHMARK(BM_Event);
BENCHMARK(BM_EventBrief);
BENCHMARK(BM_EventDefaultNesting);
BENCHMARK(BM_Perf);
BENCHMARK(BM_PerfBrief);
BENCHMARK(BM_Normal);
BENCHMARK(BM_NormalBrief);
BENCHMARK_CAPTURE(BM_Stateful, otlp_write, "otlp", false);
BENCHMARK_CAPTURE(BM_Stateful, otlp_skip, "otlp", true);
BENCHMARK_CAPTURE(BM_Stateful, perfetto_write, "perfetto", false);
BENCHMARK_CAPTURE(BM_Stateful, perfetto_skip, "perfetto", true);
BENCHMARK_CAPTURE(BM_Trace, read_only, nullptr, TraceWork::kReadOnly)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace, track_model, nullptr, TraceWork::kTrackModel)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace, otlp_write, "otlp", TraceWork::kWrite)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace, otlp_skip, "otlp", TraceWork::kSkip)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace, perfetto_write, "perfetto", TraceWork::kWrite)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Trace, perfetto_skip, "perfetto", TraceWork::kSkip)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
