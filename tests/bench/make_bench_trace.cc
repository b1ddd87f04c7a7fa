// make_bench_trace: writes the reader benchmarks' synthetic trace to a file, for measuring
// the `tracewire` command on it (docs/performance.md).
//
//   make_bench_trace [--threads=1] [--bursty] [--events=10000000] [--bytes=0] OUT
//
// Generations of 1 M events each; at least --events events or --bytes bytes are written.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "tests/bench/synthetic_trace.h"

ABSL_FLAG(int, threads, 1, "threads per generation");
ABSL_FLAG(bool, bursty, false, "threads emit in bursts (else they interleave at every event)");
ABSL_FLAG(uint64_t, events, 10'000'000, "minimum number of events");
ABSL_FLAG(uint64_t, bytes, 0, "minimum number of bytes");
ABSL_FLAG(uint64_t, events_per_generation, 1'000'000, "events per generation");

int main(int argc, char** argv) {
  std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2 || absl::GetFlag(FLAGS_threads) < 1) {
    std::fprintf(stderr, "usage: make_bench_trace [--threads=N] [--bursty] [--events=N] "
                         "[--bytes=N] [--events_per_generation=N] OUT\n");
    return 2;
  }
  const tracewire::bench::SyntheticTrace synth(absl::GetFlag(FLAGS_threads),
                                               absl::GetFlag(FLAGS_events_per_generation),
                                               absl::GetFlag(FLAGS_bursty));
  const uint64_t events =
      synth.WriteFile(args[1], absl::GetFlag(FLAGS_events), absl::GetFlag(FLAGS_bytes));
  std::printf("%s: %llu events\n", args[1], static_cast<unsigned long long>(events));
  return 0;
}
