// //tests/bench:side_by_side — the same loop through tracewire and through LTTng-UST, in
// one process, interleaved, with the clock floors measured alongside. The LTTng-UST side
// is a shared object built by tests/bench/lttng/run.sh (which also starts the LTTng
// session); without --lttng_probe the benchmark runs tracewire alone.
//
//   side_by_side [--lttng_probe=PATH] [--events=10000000] [--repetitions=5]
//
// Each pass records `events` events from one thread: tracewire alternates region_enter
// and region_leave of ("bench", "region"); LTTng-UST fires a tracepoint with the same two
// strings. Both sides are called through a function pointer so that neither is inlined
// into the loop. Prints the recording thread's CPU ns per event for each pass and the
// medians, as ratios to the rdtsc read measured in the same run.
#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "runtime/clock.h"
#include "tracewire/tracewire.h"

ABSL_FLAG(std::string, lttng_probe, "", "the LTTng-UST probe shared object (run.sh builds it)");
ABSL_FLAG(int64_t, events, 10'000'000, "events per pass");
ABSL_FLAG(int, repetitions, 5, "interleaved repetitions of every pass");

namespace {

using EventFn = void (*)(const char*, const char*);

// Alternates enter and leave so that regions stay balanced. With string literals, as the
// API is meant to be called: the call site interns them once.
__attribute__((noinline)) void TracewireRegion(const char*, const char*) {
  static thread_local bool open = false;
  if (!open) {
    tw_region_enter("bench", "region", TW_NO_REPO);
  } else {
    tw_region_leave("bench", "region", TW_NO_REPO);
  }
  open = !open;
}

// The same with strings known only at run time: each call looks them up.
__attribute__((noinline)) void TracewireRegionRuntimeStrings(const char* category,
                                                             const char* label) {
  static thread_local bool open = false;
  if (!open) {
    tw_region_enter(category, label, TW_NO_REPO);
  } else {
    tw_region_leave(category, label, TW_NO_REPO);
  }
  open = !open;
}

__attribute__((noinline)) void ReadTsc(const char*, const char*) {
  volatile uint64_t t = tracewire::runtime::ReadTicks();
  (void)t;
}

__attribute__((noinline)) void ReadClockGettime(const char*, const char*) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  volatile long t = ts.tv_nsec;
  (void)t;
}

// The recording thread's CPU time (not wall time: on a shared machine the thread is
// preempted) per event. Both tracers move I/O to other threads or processes, so this is
// the producer's cost.
double ThreadCpuNs() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double NsPerEvent(EventFn fn, int64_t events) {
  const double start = ThreadCpuNs();
  for (int64_t i = 0; i < events; ++i) fn("bench", "region");
  return (ThreadCpuNs() - start) / static_cast<double>(events);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int64_t events = absl::GetFlag(FLAGS_events);
  const int repetitions = absl::GetFlag(FLAGS_repetitions);
  struct Side {
    std::string name;
    EventFn fn;
    std::vector<double> ns;
  };
  std::vector<Side> sides = {{"rdtsc (the tracewire clock read)", ReadTsc, {}},
                             {"clock_gettime(CLOCK_MONOTONIC)", ReadClockGettime, {}},
                             {"tracewire region event", TracewireRegion, {}},
                             {"tracewire, strings known at run time", TracewireRegionRuntimeStrings,
                              {}}};
  if (const std::string probe = absl::GetFlag(FLAGS_lttng_probe); !probe.empty()) {
    void* library = dlopen(probe.c_str(), RTLD_NOW);
    if (library == nullptr) {
      std::fprintf(stderr, "side_by_side: %s\n", dlerror());
      return 2;
    }
    auto fn = reinterpret_cast<EventFn>(dlsym(library, "lttng_bench_region"));
    if (fn == nullptr) {
      std::fprintf(stderr, "side_by_side: %s has no lttng_bench_region\n", probe.c_str());
      return 2;
    }
    sides.push_back({"LTTng-UST tracepoint (two strings)", fn, {}});
  }
  tw_initialize_clock();
  tw_initialize();  // TRACEWIRE names the trace file
  if (!tw_is_enabled()) std::fprintf(stderr, "side_by_side: tracing is off (set TRACEWIRE)\n");
  // Warm-up pass of every side, then interleaved repetitions.
  for (Side& side : sides) NsPerEvent(side.fn, events / 10);
  for (int r = 0; r < repetitions; ++r) {
    for (Side& side : sides) {
      side.ns.push_back(NsPerEvent(side.fn, events));
      std::printf("pass %d  %-38s %8.2f ns/event\n", r + 1, side.name.c_str(), side.ns.back());
    }
  }
  const double floor = Median(sides[0].ns);
  std::printf("\n%-38s %10s %10s\n", "median of the passes", "ns/event", "x rdtsc");
  for (const Side& side : sides) {
    std::printf("%-38s %10.2f %10.2f\n", side.name.c_str(), Median(side.ns),
                Median(side.ns) / floor);
  }
  if (sides.size() > 4) {
    std::printf("LTTng-UST / tracewire: %.2f\n", Median(sides[4].ns) / Median(sides[2].ns));
  }
  // Warm-up plus passes: what LTTng-UST was asked to record (tracewire twice that).
  std::printf("events fired per side: %lld\n",
              static_cast<long long>(events / 10 + repetitions * events));
  tw_flush();
  return 0;
}
