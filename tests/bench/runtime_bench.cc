// //tests/bench:runtime_bench — cost of recording events, as a ratio to the bare
// timestamp read measured in the same binary, and bytes per event.
//   bazel run -c opt //tests/bench:runtime_bench
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>

#include "benchmark/benchmark.h"
#include "runtime/clock.h"
#include "runtime/tracewire.h"

namespace {

std::string g_trace_path;

void EnsureTracing() {
  static bool started = [] {
    g_trace_path = "/tmp/tracewire_runtime_bench." + std::to_string(getpid()) + ".tw";
    tw_settings settings{};
    settings.target = g_trace_path.c_str();
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

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  unlink(g_trace_path.c_str());
  return 0;
}
