// A traced program that burns CPU in two regions on two threads, 3:1 (TwBurnHeavy inside
// region "cpu/heavy" on thread "heavy", TwBurnLight inside "cpu/light" on "light"), for
// the CPU profile's consumer tests. Usage: cpu_workload [SECONDS_OF_LIGHT] (default 0.1).
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <thread>

#include "tracewire/tracewire.h"

namespace {

double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec / 1e9;
}

volatile uint64_t g_sink = 0;

}  // namespace

// The loop is inline in each, so that the functions are the ones the samples interrupt.
extern "C" __attribute__((noinline)) void TwBurnHeavy(double cpu_seconds) {
  const double end = ThreadCpuSeconds() + cpu_seconds;
  uint64_t x = 1;
  while (ThreadCpuSeconds() < end) {
    for (int i = 0; i < 2000000; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
  }
  g_sink = g_sink + x;
}

extern "C" __attribute__((noinline)) void TwBurnLight(double cpu_seconds) {
  const double end = ThreadCpuSeconds() + cpu_seconds;
  uint64_t x = 2;
  while (ThreadCpuSeconds() < end) {
    for (int i = 0; i < 2000000; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
  }
  g_sink = g_sink + x;
}

int main(int argc, const char** argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(argv);
  const double light = argc > 1 ? atof(argv[1]) : 0.1;
  std::thread heavy([light] {
    tw_thread_start("heavy");
    tw_region_enter("cpu", "heavy", TW_NO_REPO);
    TwBurnHeavy(3 * light);
    tw_region_leave("cpu", "heavy", TW_NO_REPO);
    tw_thread_exit();
  });
  std::thread light_thread([light] {
    tw_thread_start("light");
    tw_region_enter("cpu", "light", TW_NO_REPO);
    TwBurnLight(light);
    tw_region_leave("cpu", "light", TW_NO_REPO);
    tw_thread_exit();
  });
  heavy.join();
  light_thread.join();
  return tw_cmd_exit(0);
}
