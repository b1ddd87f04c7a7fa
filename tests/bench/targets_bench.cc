// //tests/bench:targets_bench — output throughput (MB of output per second) of git's
// EVENT, PERF and NORMAL targets and of the Chrome exporter over a realistic event mix.
// The events are built once (a git-status-like session of ~40 events with regions up to
// nesting 3, data, data_json, children, a worker thread, printf, error, timers and
// counters, repeated with advancing times); each iteration formats all of them into one
// reused std::string. The *Skip benchmarks pass every event to Formatter::Skip instead
// (the state updates of a decode in stripes, without the output): their time per event
// over the matching Write benchmark's is what a worker pays for the events it skips.
// BM_Folded* run the folded formatter over CPU samples (with regions); BM_Perfetto* the
// Perfetto formatter over the mix (from the second iteration on, its processes are known).
//
// BM_Stateful/<format>_{write,skip}: OTLP and Perfetto over the mix with a new formatter in
// each iteration (every process new to it), writing or skipping every event, then Finish
// (a formatter kept across iterations is no use for OTLP: it ignores the events of a
// process whose line it has written).
// BM_Trace/...: over a synthetic trace read from memory (2 interleaved threads of "region_enter,
// data_int, data, data_int, region_leave", as `make_bench_trace --threads=2` writes), with
// BM_Trace/read_only the reader alone and BM_Trace/track_model the reader and the track
// model every stateful formatter keeps: a format's Skip/Write ratio is
// (skip - read_only) / (write - read_only). With TRACEWIRE_BENCH_TRACE=<file>, BM_Trace
// reads that trace instead (read into memory once).
//   bazel run -c opt //tests/bench:targets_bench
#include <algorithm>
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

// The mix: owns nothing but string literals, `storage` and `stacks` (views and spans point
// into them).
struct Mix {
  std::vector<Event> events;
  std::vector<std::unique_ptr<std::string>> storage;
  std::vector<std::vector<tracewire::reader::SymbolFrame>> stacks;  // innermost frame first
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

// A CPU-profiled session: a process and a thread whose region (entered and left every 50
// samples) holds cpu_sample events, each of one of 64 distinct 16-frame stacks that
// share their outer frames.
const Mix& TheSampleMix() {
  static const Mix* mix = [] {
    constexpr int kStacks = 64;
    constexpr int kDepth = 16;
    constexpr int kSamples = 20000;
    auto* m = new Mix;
    m->stacks.resize(kStacks);
    for (int s = 0; s < kStacks; ++s) {
      for (int level = 0; level < kDepth; ++level) {  // outermost first
        // Outer frames are shared by more stacks: at `level`, stacks s and s' share their
        // frame if s >> (6 - level) == s' >> (6 - level).
        const int function = level * 1000 + (s >> std::max(0, 6 - level));
        m->storage.push_back(std::make_unique<std::string>(absl::StrCat("function_", function)));
        tracewire::reader::SymbolFrame frame;
        frame.pc = 0x55d0c0de0000 + static_cast<uint64_t>(function) * 64;
        frame.func = *m->storage.back();
        frame.file = "src/module.c";
        frame.line = static_cast<uint64_t>(100 + function % 900);
        m->stacks[s].push_back(frame);
      }
      std::reverse(m->stacks[s].begin(), m->stacks[s].end());  // innermost first
    }
    const absl::Time start =
        absl::FromCivil(absl::CivilSecond(2026, 11, 22, 1, 59, 55), absl::UTCTimeZone());
    int64_t us = 0;
    auto add = [&](EventKind kind, int nesting) -> Event& {
      Event& e = m->events.emplace_back();
      e.kind = kind;
      e.sid = "20261122T015955.975172Z-H0a7c9cdf-P10000";
      e.thread_name = "main";
      e.time = start + absl::Microseconds(us += 250);
      e.nesting = nesting;
      return e;
    };
    add(EventKind::kVersion, 1).exe = "2.55.0";
    add(EventKind::kStart, 1).argv = {"git", "status"};
    for (int i = 0; i < kSamples; ++i) {
      if (i % 50 == 0) {
        Event& e = add(EventKind::kRegionEnter, 1);
        e.category = "index";
        e.label = "preload";
      }
      Event& e = add(EventKind::kCpuSample, 2);
      e.stack = m->stacks[(i * 37) % kStacks];
      e.count = 1;
      if (i % 50 == 49) {
        Event& e = add(EventKind::kRegionLeave, 1);
        e.category = "index";
        e.label = "preload";
      }
    }
    return m;
  }();
  return *mix;
}

// Formats `mix` with the formatter `name` (`skip`: skips every event) in each iteration.
void Run(benchmark::State& state, absl::string_view name, FormatterOptions options,
         const Mix& mix = TheMix(), bool skip = false) {
  auto formatter = tracewire::targets::MakeFormatter(name, options);
  if (!formatter.ok()) {
    state.SkipWithError("MakeFormatter failed");
    return;
  }
  std::string out;
  size_t bytes = 0;
  for (auto _ : state) {
    out.clear();
    if (skip) {
      for (const Event& e : mix.events) (*formatter)->Skip(e);
    } else {
      for (const Event& e : mix.events) (*formatter)->Write(e, &out);
    }
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
void BM_Chrome(benchmark::State& state) { Run(state, "chrome", Options(false)); }
void BM_ChromeSkip(benchmark::State& state) {
  Run(state, "chrome", Options(false), TheMix(), /*skip=*/true);
}
FormatterOptions FoldedRegions() {
  FormatterOptions options;
  options.folded_regions = true;
  return options;
}
void BM_Folded(benchmark::State& state) { Run(state, "folded", FoldedRegions(), TheSampleMix()); }
void BM_FoldedSkip(benchmark::State& state) {
  Run(state, "folded", FoldedRegions(), TheSampleMix(), /*skip=*/true);
}
void BM_Perfetto(benchmark::State& state) { Run(state, "perfetto", Options(false)); }
void BM_PerfettoSkip(benchmark::State& state) {
  Run(state, "perfetto", Options(false), TheMix(), /*skip=*/true);
}

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
BENCHMARK(BM_Chrome);
BENCHMARK(BM_ChromeSkip);
BENCHMARK(BM_Folded);
BENCHMARK(BM_FoldedSkip);
BENCHMARK(BM_Perfetto);
BENCHMARK(BM_PerfettoSkip);
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
