// fork_storm: a traced program that forks all the time, for the fork-and-signal test.
//
//   fork_storm DEPTH
//
// Reads TRACEWIRE from the environment. After tw_initialize it writes its pid (as text,
// one line) to the descriptor FORK_STORM_PIDS names, so the test knows every process that
// got past tw_initialize. For 30 steps of about 3 ms it records regions and data on two
// threads and forks once a step: every tenth child re-executes this program with
// DEPTH - 1 (a traced process of its own) while DEPTH > 0, the others record a few events
// (which the runtime drops in a forked child) and exit. The test sends the process group SIGTERM, SIGINT or SIGQUIT at
// a random instant. A child that does not end within 5 s is reported on stderr (with
// FORK_STORM_DEBUG set, with gdb's backtraces of its threads), killed, and this program
// exits with 4.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "tracewire/tracewire.h"

namespace {

void ReportPid() {
  const char* fd_text = getenv("FORK_STORM_PIDS");
  if (fd_text == nullptr) return;
  char line[32];
  const int n = snprintf(line, sizeof(line), "%d\n", static_cast<int>(getpid()));
  if (write(atoi(fd_text), line, n) != n) _exit(3);
}

void Work(int step) {
  tw_region_enter("storm", "step", TW_NO_REPO);
  tw_data_intmax("storm", TW_NO_REPO, "step", step);
  tw_region_leave("storm", "step", TW_NO_REPO);
}

// Waits for `child` for at most 5 s; false if it is still running.
bool WaitBounded(pid_t child) {
  for (int waited_ms = 0; waited_ms < 5000; ++waited_ms) {
    if (waitpid(child, nullptr, WNOHANG) != 0) return true;
    usleep(1000);
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  alarm(30);  // never outlives a test that lost track of it
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(const_cast<const char**>(argv));
  ReportPid();
  const int depth = argc > 1 ? atoi(argv[1]) : 0;
  std::atomic<bool> stop{false};
  std::thread other([&stop] {
    tw_thread_start("other");
    for (int step = 0; !stop.load(std::memory_order_relaxed); ++step) {
      Work(step);
      if (step % 64 == 0) usleep(100);
    }
    tw_thread_exit();
  });
  for (int step = 0; step < 30; ++step) {
    tw_region_enter("storm", "fork", TW_NO_REPO);
    const pid_t child = fork();
    if (child == 0) {
      if (depth > 0 && step % 10 == 0) {
        const std::string next = std::to_string(depth - 1);
        execl("/proc/self/exe", argv[0], next.c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      for (int i = 0; i < 10; ++i) Work(i);
      _exit(0);
    }
    for (int i = 0; i < 20; ++i) Work(step * 20 + i);
    if (child > 0 && !WaitBounded(child)) {
      fprintf(stderr, "fork_storm: child %d of %d did not end within 5 s\n", static_cast<int>(child),
              static_cast<int>(getpid()));
      if (getenv("FORK_STORM_DEBUG") != nullptr) {
        const std::string gdb = "gdb -p " + std::to_string(child) +
                                " -batch -ex 'thread apply all bt' 1>&2 2>/dev/null";
        if (system(gdb.c_str()) != 0) fprintf(stderr, "fork_storm: gdb failed\n");
      }
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
      _exit(4);
    }
    tw_region_leave("storm", "fork", TW_NO_REPO);
    usleep(2000);
  }
  stop.store(true);
  other.join();
  return tw_cmd_exit(0);
}
