// Cost of the CPU profile (TRACEWIRE_CPU_PROFILE): a CPU-bound traced workload — nested
// regions around plain computation, a fixed amount of work — run as child processes with
// sampling off, at 100 Hz and at 1,000 Hz, interleaved round by round in one run. Prints
// each mode's median CPU time (user + system, from wait4), its ratio to "off", the samples
// taken (their summed weight, from the trace) and the trace bytes per sample.
//
// usage: bazel run -c opt //tests/bench:cpu_profile_bench -- [ROUNDS] [WORK]
// (ROUNDS default 7; WORK: inner regions of the workload, default 40000.)
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "reader/reader.h"
#include "tracewire/tracewire.h"

namespace {

volatile uint64_t g_sink = 0;

// About 25 us of arithmetic.
__attribute__((noinline)) uint64_t Compute(uint64_t x) {
  for (int i = 0; i < 20000; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
  return x;
}

int Workload(long inner) {
  tw_initialize();
  uint64_t x = 1;
  for (long i = 0; i < inner; i += 100) {
    tw_region_enter("bench", "outer", TW_NO_REPO);
    for (long j = 0; j < 100; ++j) {
      tw_region_enter("bench", "inner", TW_NO_REPO);
      x = Compute(x);
      tw_region_leave("bench", "inner", TW_NO_REPO);
    }
    tw_region_leave("bench", "outer", TW_NO_REPO);
  }
  g_sink = x;
  return tw_cmd_exit(0);
}

struct Run {
  double cpu_seconds = 0;
  uint64_t trace_bytes = 0;
  uint64_t sample_weight = 0;
  uint64_t samples = 0;
};

Run RunOnce(const char* self, const std::string& hz, long inner, const std::string& trace) {
  unlink(trace.c_str());
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("TRACEWIRE", trace.c_str(), 1);
    if (hz.empty()) {
      unsetenv("TRACEWIRE_CPU_PROFILE");
    } else {
      setenv("TRACEWIRE_CPU_PROFILE", hz.c_str(), 1);
    }
    const std::string work = std::to_string(inner);
    execl(self, self, "--workload", work.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Run run;
  run.cpu_seconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
                    usage.ru_stime.tv_usec / 1e6;
  struct stat st {};
  if (stat(trace.c_str(), &st) == 0) run.trace_bytes = st.st_size;
  auto reader = tracewire::reader::Reader::OpenFile(trace);
  if (reader.ok()) {
    for (;;) {
      auto e = (*reader)->Next();
      if (!e.ok() || *e == nullptr) break;
      if ((*e)->kind == tracewire::reader::EventKind::kCpuSample) {
        ++run.samples;
        run.sample_weight += (*e)->count;
      }
    }
  }
  return run;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "--workload") return Workload(atol(argv[2]));
  const int rounds = argc > 1 ? atoi(argv[1]) : 7;
  const long inner = argc > 2 ? atol(argv[2]) : 40000;
  const std::vector<std::string> modes = {"", "100", "1000"};
  std::vector<std::vector<Run>> runs(modes.size());
  const std::string trace = std::string(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp") +
                            "/cpu_profile_bench." + std::to_string(getpid()) + ".twr";
  for (int round = 0; round < rounds; ++round) {
    for (size_t m = 0; m < modes.size(); ++m) {
      runs[m].push_back(RunOnce(argv[0], modes[m], inner, trace));
    }
  }
  unlink(trace.c_str());
  auto median = [&](size_t m, auto field) {
    std::vector<double> v;
    for (const Run& r : runs[m]) v.push_back(field(r));
    return Median(v);
  };
  const double off_cpu = median(0, [](const Run& r) { return r.cpu_seconds; });
  const double off_bytes = median(0, [](const Run& r) { return double(r.trace_bytes); });
  printf("%d rounds, %ld inner regions per run (medians)\n", rounds, inner);
  printf("%-8s %10s %8s %10s %10s %12s %10s\n", "mode", "cpu_s", "ratio", "samples", "weight",
         "trace_bytes", "B/sample");
  for (size_t m = 0; m < modes.size(); ++m) {
    const double cpu = median(m, [](const Run& r) { return r.cpu_seconds; });
    const double samples = median(m, [](const Run& r) { return double(r.samples); });
    const double weight = median(m, [](const Run& r) { return double(r.sample_weight); });
    const double bytes = median(m, [](const Run& r) { return double(r.trace_bytes); });
    printf("%-8s %10.3f %8.4f %10.0f %10.0f %12.0f %10s\n",
           modes[m].empty() ? "off" : (modes[m] + " Hz").c_str(), cpu, cpu / off_cpu, samples,
           weight, bytes,
           samples > 0 ? std::to_string(static_cast<int>((bytes - off_bytes) / samples)).c_str()
                       : "-");
  }
  return 0;
}
