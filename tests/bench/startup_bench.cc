// startup_bench: what linking the tracewire runtime costs a program at start-up.
//
// Each argument names a pair of programs, LABEL=STUBS,PROGRAM: the same program linked
// with no-op stubs (tracewire_stubs.c) and with the runtime. The programs are started
// --runs times each, interleaved (stubs, runtime, runtime, stubs, ...) so that the machine's
// load falls on both alike, with tracing off (TRACEWIRE unset). For each pair it prints the
// median wall time from spawn to exit, the median CPU time (user + system) of the process,
// and the ratios runtime / stubs measured in this one run.
//
// With --traced_runs=N, each PROGRAM is also run N times traced into a fresh directory, and
// the `start` event's t_abs (seconds from tw_initialize_clock in main to the first event)
// is read back with the reader: median, 90th percentile, and how many were within 1 ms.
//
//   bazel run -c opt //tests/bench:startup_bench --
//       bazel-runtime=$PWD/bazel-bin/tests/bench/startup_app_stubs,$PWD/bazel-bin/tests/bench/startup_app
// tests/bench/startup_bench.sh also builds the installed library's variants and runs them.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "reader/event.h"
#include "reader/reader.h"

ABSL_FLAG(int, runs, 300, "starts of each program with tracing off");
ABSL_FLAG(int, traced_runs, 100, "starts of each runtime-linked program traced (0: none)");

extern char** environ;

namespace tracewire::bench {
namespace {

struct Pair {
  std::string label;
  std::string stubs;
  std::string program;
};

struct Start {
  double wall_us = 0;
  double cpu_us = 0;
};

// The environment without TRACEWIRE* variables, plus `extra`.
std::vector<std::string> Environment(const std::string& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "TRACEWIRE", 9) != 0) env.push_back(*e);
  }
  if (!extra.empty()) env.push_back(extra);
  return env;
}

double MonotonicMicros() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// Starts `program` with `env`, waits for it; nullopt if it could not run or failed.
std::optional<Start> Run(const std::string& program, const std::vector<std::string>& env) {
  std::vector<char*> argv = {const_cast<char*>(program.c_str()), nullptr};
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  const double begin = MonotonicMicros();
  pid_t pid;
  const int error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    std::fprintf(stderr, "startup_bench: cannot start %s: %s\n", program.c_str(),
                 std::strerror(error));
    return std::nullopt;
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "startup_bench: %s failed (status %d)\n", program.c_str(), status);
    return std::nullopt;
  }
  Start start;
  start.wall_us = MonotonicMicros() - begin;
  start.cpu_us = usage.ru_utime.tv_sec * 1e6 + usage.ru_utime.tv_usec +
                 usage.ru_stime.tv_sec * 1e6 + usage.ru_stime.tv_usec;
  return start;
}

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * (values.size() - 1) + 0.5)];
}

// The t_abs of the `start` event in the only trace file of `dir`.
absl::StatusOr<double> StartTabs(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    files.push_back(entry.path().string());
  }
  if (files.size() != 1) {
    return absl::FailedPreconditionError(absl::StrFormat("%s holds %d files", dir, files.size()));
  }
  absl::StatusOr<std::unique_ptr<reader::Reader>> trace =
      reader::Reader::OpenFile(files[0], reader::ReaderOptions());
  if (!trace.ok()) return trace.status();
  while (true) {
    absl::StatusOr<const reader::Event*> event = (*trace)->Next();
    if (!event.ok()) return event.status();
    if (*event == nullptr) return absl::NotFoundError(files[0] + ": no start event");
    if ((*event)->kind == reader::EventKind::kStart) return (*event)->t_abs;
  }
}

int Main(const std::vector<Pair>& pairs) {
  const int runs = absl::GetFlag(FLAGS_runs);
  const int traced_runs = absl::GetFlag(FLAGS_traced_runs);
  const std::vector<std::string> untraced_env = Environment("");
  std::vector<std::vector<Start>> stubs(pairs.size()), programs(pairs.size());
  for (int i = 0; i < runs; ++i) {
    for (size_t p = 0; p < pairs.size(); ++p) {
      // Alternate the order so that neither side always runs first.
      const bool stubs_first = i % 2 == 0;
      for (int k = 0; k < 2; ++k) {
        const bool run_stubs = (k == 0) == stubs_first;
        std::optional<Start> start =
            Run(run_stubs ? pairs[p].stubs : pairs[p].program, untraced_env);
        if (!start.has_value()) return 1;
        (run_stubs ? stubs : programs)[p].push_back(*start);
      }
    }
  }
  std::printf("Process start, tracing off: median of %d starts each, interleaved\n", runs);
  std::printf("%-28s %12s %12s %7s %12s %12s %7s\n", "program", "stubs wall", "runtime wall",
              "ratio", "stubs cpu", "runtime cpu", "ratio");
  for (size_t p = 0; p < pairs.size(); ++p) {
    auto median = [](const std::vector<Start>& starts, bool wall) {
      std::vector<double> values;
      for (const Start& s : starts) values.push_back(wall ? s.wall_us : s.cpu_us);
      return Quantile(values, 0.5);
    };
    const double stubs_wall = median(stubs[p], true), program_wall = median(programs[p], true);
    const double stubs_cpu = median(stubs[p], false), program_cpu = median(programs[p], false);
    std::printf("%-28s %9.0f us %9.0f us %6.2fx %9.0f us %9.0f us %6.2fx\n",
                pairs[p].label.c_str(), stubs_wall, program_wall, program_wall / stubs_wall,
                stubs_cpu, program_cpu, program_cpu / stubs_cpu);
  }
  if (traced_runs <= 0) return 0;

  std::printf("\nTraced to a directory: the start event's t_abs over %d starts each\n",
              traced_runs);
  std::printf("%-28s %10s %10s %10s %14s\n", "program", "median", "p90", "max", "within 1 ms");
  const std::string root = std::filesystem::temp_directory_path() /
                           absl::StrFormat("tracewire-startup-%d", getpid());
  for (const Pair& pair : pairs) {
    std::vector<double> tabs;
    for (int i = 0; i < traced_runs; ++i) {
      const std::string dir = absl::StrFormat("%s/%s-%d", root, pair.label, i);
      std::filesystem::create_directories(dir);
      if (!Run(pair.program, Environment("TRACEWIRE=" + dir)).has_value()) return 1;
      absl::StatusOr<double> t = StartTabs(dir);
      if (!t.ok()) {
        std::fprintf(stderr, "startup_bench: %s\n", std::string(t.status().message()).c_str());
        return 1;
      }
      tabs.push_back(*t * 1e3);
    }
    const long within = std::count_if(tabs.begin(), tabs.end(), [](double ms) { return ms <= 1; });
    std::printf("%-28s %7.3f ms %7.3f ms %7.3f ms %8ld / %-4d\n", pair.label.c_str(),
                Quantile(tabs, 0.5), Quantile(tabs, 0.9), Quantile(tabs, 1.0), within,
                traced_runs);
  }
  std::filesystem::remove_all(root);
  return 0;
}

}  // namespace
}  // namespace tracewire::bench

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "startup_bench [--runs=N] [--traced_runs=N] LABEL=STUBS_PROGRAM,RUNTIME_PROGRAM...");
  const std::vector<char*> args = absl::ParseCommandLine(argc, argv);
  std::vector<tracewire::bench::Pair> pairs;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::vector<std::string> label_rest = absl::StrSplit(args[i], absl::MaxSplits('=', 1));
    const std::vector<std::string> programs =
        label_rest.size() == 2 ? absl::StrSplit(label_rest[1], ',') : std::vector<std::string>{};
    if (programs.size() != 2) {
      std::fprintf(stderr, "startup_bench: expected LABEL=STUBS,PROGRAM, got '%s'\n", args[i]);
      return 2;
    }
    pairs.push_back({label_rest[0], programs[0], programs[1]});
  }
  if (pairs.empty()) {
    std::fprintf(stderr, "%s\n", absl::ProgramUsageMessage().data());
    return 2;
  }
  return tracewire::bench::Main(pairs);
}
