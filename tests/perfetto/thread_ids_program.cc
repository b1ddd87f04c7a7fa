// A traced program whose threads record the kernel thread id they see, for the thread id
// tests: every thread records gettid() as a data event (category "ids", key "gettid") and
// writes "<base name> <tid>" to the file OUT (the thread's name after "thNN:", or "main"). Worker
// threads "w<i>" announce themselves with tw_thread_start; one more thread records without
// it (attached as "thNN:unknown"), so its stream begins with a re-statement. Each thread then
// records `regions` regions, so a small TRACEWIRE_GENERATION_BYTES spreads the threads over several
// generations. Usage: thread_ids_program OUT [WORKERS [REGIONS]] (defaults 4 and 200).
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tracewire/tracewire.h"

namespace {

std::mutex g_print_mu;
FILE* g_out = nullptr;

long Tid() { return syscall(SYS_gettid); }

void Report(const std::string& name, int regions) {
  const long tid = Tid();
  tw_data_intmax("ids", TW_NO_REPO, "gettid", tid);
  for (int i = 0; i < regions; ++i) {
    tw_region_enter("ids", "work", TW_NO_REPO);
    tw_data_intmax("ids", TW_NO_REPO, "i", i);
    tw_region_leave("ids", "work", TW_NO_REPO);
  }
  std::lock_guard<std::mutex> lock(g_print_mu);
  std::fprintf(g_out, "%s %ld\n", name.c_str(), tid);
}

}  // namespace

int main(int argc, const char** argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(argv);
  if (argc < 2 || (g_out = std::fopen(argv[1], "w")) == nullptr) return 2;
  const int workers = argc > 2 ? std::atoi(argv[2]) : 4;
  const int regions = argc > 3 ? std::atoi(argv[3]) : 200;
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([w, regions] {
      const std::string base = "w" + std::to_string(w);
      tw_thread_start(base.c_str());
      Report(base, regions);
      tw_thread_exit();
    });
  }
  for (std::thread& t : threads) t.join();
  std::thread unannounced([regions] { Report("unknown", regions); });
  unannounced.join();
  Report("main", regions);
  std::fclose(g_out);
  return tw_cmd_exit(0);
}
