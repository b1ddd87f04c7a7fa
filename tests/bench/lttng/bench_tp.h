/* LTTng-UST tracepoint provider of the side-by-side benchmark: the payload of a tracewire
 * region event (a category and a label string). Built by tests/bench/lttng/run.sh. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tracewire_bench
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_tp.h"
#if !defined(TRACEWIRE_BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TRACEWIRE_BENCH_TP_H
#include <lttng/tracepoint.h>
LTTNG_UST_TRACEPOINT_EVENT(tracewire_bench, region,
                           LTTNG_UST_TP_ARGS(const char*, category, const char*, label),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_string(category, category)
                                                   lttng_ust_field_string(label, label)))
#endif
#include <lttng/tracepoint-event.h>
