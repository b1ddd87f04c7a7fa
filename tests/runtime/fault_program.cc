// A traced program for the fault tests: it records numbered events and prints a fixed
// sequence of lines, so a test can check that whatever happens to the trace, the program's
// own stdout and exit code (7) are those of an untraced run.
//
//   fault_program [--events=N] [--flush_every=K] [--forever] [--stderr_lines]
//                 [--reuse_fd=FD:PATH] [--wait_after_first_line]
//
// Each step records region_enter, data_int "seq" = step number, region_leave. After every
// K steps (1000 without --flush_every) it calls tw_flush() if --flush_every was given, then
// prints "line <n>". --forever runs until killed. --stderr_lines writes a line to stderr
// after tw_initialize and before exit. --reuse_fd closes FD half-way, puts a file of its
// own (PATH, truncated) under the same number and writes "program data\n" to it at the end.
// --wait_after_first_line reads one byte from stdin after printing "line 0" (the test acts
// on the destination meanwhile).
// It ends with "done" and tw_cmd_exit(7).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tracewire/tracewire.h"

namespace {

bool Flag(const char* arg, const char* name, const char** value) {
  const size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '\0') {
    *value = "";
    return true;
  }
  if (arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t events = 20000;
  int64_t flush_every = 0;
  bool forever = false;
  bool stderr_lines = false;
  bool wait_after_first_line = false;
  int reuse_fd = -1;
  std::string reuse_path;
  for (int i = 1; i < argc; ++i) {
    const char* value;
    if (Flag(argv[i], "--events", &value)) {
      events = atoll(value);
    } else if (Flag(argv[i], "--flush_every", &value)) {
      flush_every = atoll(value);
    } else if (Flag(argv[i], "--forever", &value)) {
      forever = true;
    } else if (Flag(argv[i], "--stderr_lines", &value)) {
      stderr_lines = true;
    } else if (Flag(argv[i], "--wait_after_first_line", &value)) {
      wait_after_first_line = true;
    } else if (Flag(argv[i], "--reuse_fd", &value)) {
      reuse_fd = atoi(value);
      const char* colon = strchr(value, ':');
      if (colon != nullptr) reuse_path = colon + 1;
    } else {
      fprintf(stderr, "fault_program: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  tw_initialize();
  if (stderr_lines) fprintf(stderr, "the program's own stderr line\n");
  const int64_t chunk = flush_every > 0 ? flush_every : 1000;
  int line = 0;
  for (int64_t i = 0; forever || i < events; ++i) {
    tw_region_enter("fault", "step", TW_NO_REPO);
    tw_data_intmax("fault", TW_NO_REPO, "seq", i);
    tw_region_leave("fault", "step", TW_NO_REPO);
    if (reuse_fd >= 0 && i == events / 2) {
      close(reuse_fd);
      const int own = open(reuse_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (own >= 0 && own != reuse_fd) {
        dup2(own, reuse_fd);
        close(own);
      }
    }
    if (i % chunk == chunk - 1) {
      if (flush_every > 0) tw_flush();
      printf("line %d\n", line++);
      fflush(stdout);
      if (wait_after_first_line && line == 1) {
        char go;
        if (read(0, &go, 1) != 1) return 4;
      }
    }
  }
  if (reuse_fd >= 0) {
    const char data[] = "program data\n";
    if (write(reuse_fd, data, sizeof(data) - 1) < 0) return 3;
  }
  if (stderr_lines) fprintf(stderr, "the program's own last stderr line\n");
  printf("done\n");
  return tw_cmd_exit(7);
}
