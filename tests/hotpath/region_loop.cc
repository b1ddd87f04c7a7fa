// //tests/hotpath:region_loop — a fixed loop of region events for counting the hot path's
// instructions (hot_path_instructions_test runs it under callgrind).
//
//   region_loop TRACE_PATH PAIRS
//
// Starts tracing into TRACE_PATH, then calls RegionLoop(PAIRS): PAIRS enter/leave pairs of
// one literal call site through the tw_region_enter/tw_region_leave macros, on the main
// thread. Prints "clock counter" or "clock monotonic" (the trace clock in use) and exits 0.
#include <cstdio>
#include <cstdlib>

#include "runtime/clock.h"
#include "tracewire/tracewire.h"

// The measured loop: callgrind collects inside this function only (--toggle-collect).
extern "C" __attribute__((noinline)) void RegionLoop(long pairs) {
  for (long i = 0; i < pairs; ++i) {
    tw_region_enter("hotpath", "region", TW_NO_REPO);
    tw_region_leave("hotpath", "region", TW_NO_REPO);
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: region_loop TRACE_PATH PAIRS\n");
    return 2;
  }
  tw_initialize_clock();
  tw_settings settings = TW_SETTINGS_INIT;
  settings.target = argv[1];
  // One generation for the whole run: no time-driven cut lands in the loop.
  settings.generation_ms = 3'600'000;
  if (tw_initialize_with(&settings) != 0) {
    fprintf(stderr, "region_loop: cannot trace into %s\n", argv[1]);
    return 1;
  }
  RegionLoop(atol(argv[2]));
  printf("clock %s\n", tracewire::runtime::g_clock_is_counter ? "counter" : "monotonic");
  return 0;
}
