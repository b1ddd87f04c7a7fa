// region_workload: a traced program that records many regions on several threads, for the
// viewer tests (large Chrome exports, HTML reports, `tracewire run`).
//
//   region_workload THREADS GROUPS [EXIT_CODE]
//
// Each of THREADS threads ("worker") records GROUPS groups of 5 regions, 3 deep:
//   load/task { load/step { load/io }  load/step { load/io } }
// with an io region busy for (group % 5) microseconds, plus one data event (load/group) per
// group: 11 events per group. main records a load/setup region, an error when EXIT_CODE is
// not 0, and returns EXIT_CODE. Tracing follows TRACEWIRE (docs/api.md).
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

namespace {

void BusyMicros(int micros) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  while (std::chrono::steady_clock::now() < end) {
  }
}

void Worker(int groups) {
  tracewire::ThreadScope thread("worker");
  for (int group = 0; group < groups; ++group) {
    tracewire::RegionScope task("load", "task");
    for (int step = 0; step < 2; ++step) {
      tracewire::RegionScope step_region("load", "step");
      tracewire::RegionScope io("load", "io");
      BusyMicros(group % 5);
    }
    tw_data_intmax("load", TW_NO_REPO, "group", group);
  }
}

}  // namespace

int main(int argc, char** argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(const_cast<const char**>(argv));
  tw_cmd_name("load");
  int threads = 0;
  int groups = 0;
  int code = 0;
  if (argc < 3 || argc > 4 || !absl::SimpleAtoi(argv[1], &threads) ||
      !absl::SimpleAtoi(argv[2], &groups) || (argc == 4 && !absl::SimpleAtoi(argv[3], &code)) ||
      threads < 0 || groups < 0) {
    tw_cmd_error("usage: region_workload THREADS GROUPS [EXIT_CODE]");
    return tw_cmd_exit(2);
  }
  {
    tracewire::RegionScope setup("load", "setup");
    std::vector<std::thread> workers;
    for (int i = 0; i < threads; ++i) workers.emplace_back(Worker, groups);
    for (std::thread& worker : workers) worker.join();
  }
  if (code != 0) tw_cmd_error("region_workload: exiting with %d", code);
  return tw_cmd_exit(code);
}
