// //tests/bench:runtime_bench — cost of recording events, as a ratio to the bare
// timestamp read measured in the same binary, and bytes per event.
//   bazel run -c opt //tests/bench:runtime_bench
// BM_FreshProcessPasses runs this binary again as a fresh process (--fresh_process_passes)
// that times its first pass of events (cold: every buffer is new) and a second one (warm);
// BM_FreshProcessPassesTwoThreads does so on two threads at once, and
// BM_FreshProcessPassesCpuProfile with the CPU profile on at 1,000 Hz.
// BM_FlightVsStreaming runs such a process streaming and one in flight-recorder mode
// (4 MiB ring) in each iteration: the ratio of their costs per event and their peak RSS.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"
#include "runtime/ancestry.h"
#include "runtime/clock.h"
#include "tracewire/tracewire.h"

namespace {

std::string g_trace_path;
uint64_t g_flight_recorder_bytes = 0;  // the fresh process in flight-recorder mode
unsigned g_cpu_profile_hz = 0;         // the fresh process with the CPU profile on
int g_pass_threads = 1;                // threads recording the fresh process's passes

void EnsureTracing() {
  static bool started = [] {
    g_trace_path = "/tmp/tracewire_runtime_bench." + std::to_string(getpid()) + ".tw";
    tw_settings settings{};
    settings.target = g_trace_path.c_str();
    settings.flight_recorder_bytes = g_flight_recorder_bytes;
    settings.cpu_profile_hz = g_cpu_profile_hz;
    settings.categories = "*,-filtered";  // BM_FilteredRegion's category
    tw_initialize_clock();
    return tw_initialize_with(&settings) == 0;
  }();
  if (!started) abort();
}

off_t TraceFileSize() {
  tw_flush();
  struct stat st;
  return stat(g_trace_path.c_str(), &st) == 0 ? st.st_size : 0;
}

// The floor: one read of the trace clock.
void BM_TimestampRead(benchmark::State& state) {
  EnsureTracing();
  for (auto _ : state) benchmark::DoNotOptimize(tracewire::runtime::ReadTicks());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TimestampRead)->Threads(1)->Threads(2);

// One region_enter plus one region_leave per iteration (two events).
void BM_RegionEnterLeave(benchmark::State& state) {
  EnsureTracing();
  const off_t before = state.thread_index() == 0 ? TraceFileSize() : 0;
  for (auto _ : state) {
    tw_region_enter("bench", "region", TW_NO_REPO);
    tw_region_leave("bench", "region", TW_NO_REPO);
  }
  state.SetItemsProcessed(state.iterations() * 2);
  if (state.thread_index() == 0) {
    const double events = static_cast<double>(state.iterations()) * 2 * state.threads();
    state.counters["bytes_per_event"] = (TraceFileSize() - before) / events;
  }
}
BENCHMARK(BM_RegionEnterLeave)->Threads(1)->Threads(2);

// region_enter and region_leave timed separately: 64 nested enters, then 64 leaves, each
// half timed by hand (steady_clock around the 64 calls) so the other half is not counted.
template <bool kTimeEnter>
void RegionHalf(benchmark::State& state) {
  EnsureTracing();
  constexpr int kDepth = 64;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kDepth; ++i) tw_region_enter("bench", "nested", TW_NO_REPO);
    const auto t1 = std::chrono::steady_clock::now();
    for (int i = 0; i < kDepth; ++i) tw_region_leave("bench", "nested", TW_NO_REPO);
    const auto t2 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(kTimeEnter ? t1 - t0 : t2 - t1).count());
  }
  state.SetItemsProcessed(state.iterations() * kDepth);
}

void BM_RegionEnter(benchmark::State& state) { RegionHalf<true>(state); }
BENCHMARK(BM_RegionEnter)->UseManualTime()->Threads(1)->Threads(2);

void BM_RegionLeave(benchmark::State& state) { RegionHalf<false>(state); }
BENCHMARK(BM_RegionLeave)->UseManualTime()->Threads(1)->Threads(2);

void BM_DataIntmax(benchmark::State& state) {
  EnsureTracing();
  int64_t value = 0;
  for (auto _ : state) tw_data_intmax("bench", TW_NO_REPO, "value", ++value);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DataIntmax)->Threads(1)->Threads(2);

void BM_Printf(benchmark::State& state) {
  EnsureTracing();
  int value = 0;
  for (auto _ : state) tw_printf("iteration %d", ++value);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Printf)->Threads(1)->Threads(2);

// A call site while tracing is disabled: the macro's one branch.
void BM_DisabledRegion(benchmark::State& state) {
  EnsureTracing();
  const int saved = tw_enabled_flag;
  if (state.thread_index() == 0) tw_enabled_flag = 0;
  for (auto _ : state) {
    tw_region_enter("bench", "disabled", TW_NO_REPO);
    benchmark::ClobberMemory();
  }
  if (state.thread_index() == 0) tw_enabled_flag = saved;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DisabledRegion)->Threads(1)->Threads(2);

// tw_task_adopt: the thread switches between two tasks, one task_adopt event per call
// (adopting the task already adopted writes nothing).
void BM_TaskAdopt(benchmark::State& state) {
  EnsureTracing();
  const uint64_t tasks[2] = {tw_task_begin(0, "bench", "a"), tw_task_begin(0, "bench", "b")};
  uint64_t i = 0;
  for (auto _ : state) tw_task_adopt(tasks[++i & 1]);
  tw_task_release();
  for (uint64_t task : tasks) tw_task_end(task);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TaskAdopt)->Threads(1)->Threads(2);

// tw_task_begin plus tw_task_end on the same thread (two events).
void BM_TaskBeginEnd(benchmark::State& state) {
  EnsureTracing();
  for (auto _ : state) tw_task_end(tw_task_begin(0, "bench", "task"));
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_TaskBeginEnd)->Threads(1)->Threads(2);

// tw_gauge_set: one gauge sample.
void BM_GaugeSet(benchmark::State& state) {
  EnsureTracing();
  static const int gauge = tw_gauge_define("bench", "depth", "items");
  int64_t value = 0;
  for (auto _ : state) tw_gauge_set(gauge, ++value);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GaugeSet)->Threads(1)->Threads(2);

// A literal call site whose category TRACEWIRE_CATEGORIES filters out, tracing on: the
// macro's test of its cached site word.
void BM_FilteredRegion(benchmark::State& state) {
  EnsureTracing();
  for (auto _ : state) {
    tw_region_enter("filtered", "region", TW_NO_REPO);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FilteredRegion)->Threads(1)->Threads(2);

// What the automatic cmd_ancestry adds to tw_cmd_start, once per process: reading the
// parent chain from /proc (one small file per ancestor).
void BM_AutomaticAncestry(benchmark::State& state) {
  size_t names = 0;
  for (auto _ : state) {
    names = tracewire::runtime::ReadAncestry(getppid()).size();
    benchmark::DoNotOptimize(names);
  }
  state.counters["ancestors"] = static_cast<double>(names);
}
BENCHMARK(BM_AutomaticAncestry);
// ---- Fresh-process passes ----------------------------------------------------------------

constexpr const char* kFreshProcessFlag = "--fresh_process_passes";
constexpr int64_t kPassEvents = 10'000'000;

double ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

long ThreadMinorFaults() {
  rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

// CPU ns per clock read on this thread.
double ClockReadNanos() {
  constexpr int64_t kReads = 10'000'000;
  const double start = ThreadCpuNanos();
  for (int64_t i = 0; i < kReads; ++i) benchmark::DoNotOptimize(tracewire::runtime::ReadTicks());
  return (ThreadCpuNanos() - start) / kReads;
}

struct Pass {
  double ns_per_event;
  long minor_faults;
};

// kPassEvents region events (enter/leave pairs) on this thread.
Pass RegionPass() {
  const long faults = ThreadMinorFaults();
  const double start = ThreadCpuNanos();
  for (int64_t i = 0; i < kPassEvents / 2; ++i) {
    tw_region_enter("bench", "region", TW_NO_REPO);
    tw_region_leave("bench", "region", TW_NO_REPO);
  }
  return Pass{(ThreadCpuNanos() - start) / kPassEvents, ThreadMinorFaults() - faults};
}

// The process's peak resident set (VmHWM) in bytes, or 0 if unknown.
double PeakRssBytes() {
  FILE* status = fopen("/proc/self/status", "r");
  if (status == nullptr) return 0;
  char line[256];
  double kib = 0;
  while (fgets(line, sizeof(line), status) != nullptr) {
    if (sscanf(line, "VmHWM: %lf kB", &kib) == 1) break;
  }
  fclose(status);
  return kib * 1024;
}

// The child side: a fresh process that starts tracing, then times a cold pass and a warm
// pass of kPassEvents with the default settings, and the clock read before and after;
// then its peak RSS. In flight-recorder mode it ends with a dump.
// With g_pass_threads > 1, as many threads run both passes at once; the figures are
// their means.
int FreshProcessPasses() {
  const double base_rss = PeakRssBytes();
  EnsureTracing();
  const double clock_before = ClockReadNanos();
  std::vector<Pass> colds(g_pass_threads), warms(g_pass_threads);
  std::vector<std::thread> others;
  for (int t = 1; t < g_pass_threads; ++t) {
    others.emplace_back([&colds, &warms, t] {
      colds[t] = RegionPass();
      warms[t] = RegionPass();
    });
  }
  colds[0] = RegionPass();
  warms[0] = RegionPass();
  for (std::thread& other : others) other.join();
  Pass cold{0, 0}, warm{0, 0};
  for (int t = 0; t < g_pass_threads; ++t) {
    cold.ns_per_event += colds[t].ns_per_event / g_pass_threads;
    cold.minor_faults += colds[t].minor_faults / g_pass_threads;
    warm.ns_per_event += warms[t].ns_per_event / g_pass_threads;
    warm.minor_faults += warms[t].minor_faults / g_pass_threads;
  }
  const double clock_after = ClockReadNanos();
  if (g_flight_recorder_bytes != 0 && tw_flight_recorder_dump() != 0) return 1;
  printf("%f %f %ld %f %ld %f %f\n", (clock_before + clock_after) / 2, cold.ns_per_event,
         cold.minor_faults, warm.ns_per_event, warm.minor_faults, PeakRssBytes(), base_rss);
  fflush(stdout);
  unlink(g_trace_path.c_str());
  return 0;
}

// What a fresh process reported.
struct FreshResult {
  bool ok = false;
  double clock_ns, cold_ns, warm_ns, cold_faults, warm_faults;
  double peak_rss;  // VmHWM at the end
  double base_rss;  // VmHWM before tracing started
};

// Runs this binary as a fresh process with `flag` and reads its report.
FreshResult RunFreshProcess(const char* mode_flag) {
  int out[2];
  if (pipe(out) != 0) abort();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  char self[] = "/proc/self/exe";
  char flag[64];
  snprintf(flag, sizeof(flag), "%s", kFreshProcessFlag);
  char mode[64];
  snprintf(mode, sizeof(mode), "%s", mode_flag);
  char* child_argv[] = {self, flag, mode_flag[0] != '\0' ? mode : nullptr, nullptr};
  pid_t pid;
  if (posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, child_argv, environ) != 0) abort();
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  char line[256] = {};
  size_t got = 0;
  ssize_t n;
  while (got < sizeof(line) - 1 && (n = read(out[0], line + got, sizeof(line) - 1 - got)) > 0) {
    got += n;
  }
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  FreshResult r;
  long cold_faults, warm_faults;
  r.ok = sscanf(line, "%lf %lf %ld %lf %ld %lf %lf", &r.clock_ns, &r.cold_ns, &cold_faults,
                &r.warm_ns, &warm_faults, &r.peak_rss, &r.base_rss) == 7;
  r.cold_faults = cold_faults;
  r.warm_faults = warm_faults;
  return r;
}

// Each iteration runs one fresh process. Counters: clock_ns (the clock read), cold_ns and
// warm_ns per event, their ratios to clock_ns, and the recording thread's minor page faults
// per pass of 10 M events.
void FreshProcessCounters(benchmark::State& state, const char* mode_flag) {
  double clock = 0, cold = 0, warm = 0, cold_faults = 0, warm_faults = 0;
  int runs = 0;
  for (auto _ : state) {
    const FreshResult r = RunFreshProcess(mode_flag);
    if (!r.ok) {
      state.SkipWithError("the fresh process did not report its passes");
      return;
    }
    const double c = r.clock_ns, cn = r.cold_ns, wn = r.warm_ns, cf = r.cold_faults,
                 wf = r.warm_faults;
    clock += c;
    cold += cn;
    warm += wn;
    cold_faults += cf;
    warm_faults += wf;
    ++runs;
    state.SetIterationTime(cn * kPassEvents / 1e9);
  }
  state.counters["clock_ns"] = clock / runs;
  state.counters["cold_ns"] = cold / runs;
  state.counters["warm_ns"] = warm / runs;
  state.counters["cold_ratio"] = cold / clock;
  state.counters["warm_ratio"] = warm / clock;
  state.counters["cold_faults"] = cold_faults / runs;
  state.counters["warm_faults"] = warm_faults / runs;
}

void BM_FreshProcessPasses(benchmark::State& state) { FreshProcessCounters(state, ""); }
BENCHMARK(BM_FreshProcessPasses)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

constexpr const char* kTwoThreadsFlag = "--two_threads";
constexpr const char* kCpuProfileFlag = "--cpu_profile";

// The same with two threads recording both passes at once (their mean per event).
void BM_FreshProcessPassesTwoThreads(benchmark::State& state) {
  FreshProcessCounters(state, kTwoThreadsFlag);
}
BENCHMARK(BM_FreshProcessPassesTwoThreads)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

// The same with the CPU profile on at 1,000 Hz (TRACEWIRE_CPU_PROFILE=1000).
void BM_FreshProcessPassesCpuProfile(benchmark::State& state) {
  FreshProcessCounters(state, kCpuProfileFlag);
}
BENCHMARK(BM_FreshProcessPassesCpuProfile)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

constexpr const char* kFlightFlag = "--flight_recorder";
constexpr uint64_t kFlightRingBytes = 4 << 20;

// Each iteration runs one streaming and one flight-recorder fresh process (4 MiB ring),
// one after the other. Counters: their warm and cold ns per event, the flight/streaming
// ratios, the events per second of the flight pass, both processes' peak RSS and their RSS
// before tracing started (MiB).
void BM_FlightVsStreaming(benchmark::State& state) {
  FreshResult stream_sum{}, flight_sum{};
  int runs = 0;
  double stream_rss = 0, flight_rss = 0, base_rss = 0;
  for (auto _ : state) {
    const FreshResult stream = RunFreshProcess("");
    const FreshResult flight = RunFreshProcess(kFlightFlag);
    if (!stream.ok || !flight.ok) {
      state.SkipWithError("a fresh process did not report its passes");
      return;
    }
    stream_sum.cold_ns += stream.cold_ns;
    stream_sum.warm_ns += stream.warm_ns;
    flight_sum.cold_ns += flight.cold_ns;
    flight_sum.warm_ns += flight.warm_ns;
    stream_rss = std::max(stream_rss, stream.peak_rss);
    flight_rss = std::max(flight_rss, flight.peak_rss);
    base_rss = std::max(base_rss, std::max(stream.base_rss, flight.base_rss));
    ++runs;
    state.SetIterationTime(flight.warm_ns * kPassEvents / 1e9);
  }
  state.counters["stream_warm_ns"] = stream_sum.warm_ns / runs;
  state.counters["flight_warm_ns"] = flight_sum.warm_ns / runs;
  state.counters["warm_ratio"] = flight_sum.warm_ns / stream_sum.warm_ns;
  state.counters["cold_ratio"] = flight_sum.cold_ns / stream_sum.cold_ns;
  state.counters["flight_Mevents_s"] = 1e3 / (flight_sum.warm_ns / runs);
  state.counters["stream_peak_rss_MiB"] = stream_rss / (1 << 20);
  state.counters["flight_peak_rss_MiB"] = flight_rss / (1 << 20);
  state.counters["untraced_rss_MiB"] = base_rss / (1 << 20);
}
BENCHMARK(BM_FlightVsStreaming)->UseManualTime()->Iterations(3)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && strcmp(argv[1], kFreshProcessFlag) == 0) {
    if (argc == 3 && strcmp(argv[2], kFlightFlag) == 0) g_flight_recorder_bytes = kFlightRingBytes;
    if (argc == 3 && strcmp(argv[2], kTwoThreadsFlag) == 0) g_pass_threads = 2;
    if (argc == 3 && strcmp(argv[2], kCpuProfileFlag) == 0) g_cpu_profile_hz = 1000;
    return FreshProcessPasses();
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  unlink(g_trace_path.c_str());
  return 0;
}
