// task_workload: a traced program with many task names and gauges, for the report tests.
//
//   task_workload NAMES GAUGES
//
// For each of NAMES names ("jobs/name-<i>"), main begins a task, a helper thread adopts,
// releases it, and main ends it: one task and one segment per name. For each of GAUGES
// gauges ("levels/gauge-<i>", unit "units"), main records the samples 1 and 0.
// Tracing follows TRACEWIRE (docs/api.md).
#include <cstdint>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

int main(int argc, char** argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(const_cast<const char**>(argv));
  int names = 0;
  int gauges = 0;
  if (argc != 3 || !absl::SimpleAtoi(argv[1], &names) || !absl::SimpleAtoi(argv[2], &gauges) ||
      names < 0 || gauges < 0) {
    tw_cmd_error("usage: task_workload NAMES GAUGES");
    return tw_cmd_exit(2);
  }
  for (int i = 0; i < names; ++i) {
    const std::string name = absl::StrCat("name-", i);
    const uint64_t task = tw_task_begin(0, "jobs", name.c_str());
    std::thread helper([task] {
      tracewire::ThreadScope thread("helper");
      tw_task_adopt(task);
      tw_task_release();
    });
    helper.join();
    tw_task_end(task);
  }
  for (int i = 0; i < gauges; ++i) {
    const std::string name = absl::StrCat("gauge-", i);
    const int gauge = tw_gauge_define("levels", name.c_str(), "units");
    tw_gauge_set(gauge, 1);
    tw_gauge_set(gauge, 0);
  }
  return tw_cmd_exit(0);
}
