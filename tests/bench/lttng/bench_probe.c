/* The LTTng-UST side of the side-by-side benchmark, as a shared object the benchmark
 * (//tests/bench:side_by_side) loads with dlopen: the tracepoint provider and one function
 * that fires its tracepoint. Built by tests/bench/lttng/run.sh with gcc. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bench_tp.h"

/* One LTTng-UST event with the payload of a tracewire region event. */
void lttng_bench_region(const char* category, const char* label) {
  lttng_ust_tracepoint(tracewire_bench, region, category, label);
}
