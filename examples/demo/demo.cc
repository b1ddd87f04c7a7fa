// examples/demo/demo: a multi-threaded workload instrumented like the Trace2 documentation's
// examples. Run with TRACEWIRE=<target> (see docs/api.md):
//   status-like regions with nested read_recursive regions, preload threads with data
//   events, a traced child process (this program again, as "demo child"), a timer, a
//   counter and an error. DEMO_EXEC_PREFIX, if set, is a command (words separated by
//   spaces) the child is started through: `qemu-aarch64 -L /usr/aarch64-linux-gnu` where an
//   arm64 build runs under emulation.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

namespace {

int g_timer_hash = -1;
int g_counter_files = -1;

// Simulates reading a directory tree: nested regions, like git's read_directory.
void ReadRecursive(const std::string& base, int depth, int repo) {
  tw_region_enter_printf("dir", "read_recursive", repo, "%s", base.c_str());
  tracewire::TimerScope timer(g_timer_hash);
  tw_counter_add(g_counter_files, 3);
  if (depth > 0) {
    for (int i = 0; i < 2; ++i)
      ReadRecursive(base + "sub" + std::to_string(i) + "/", depth - 1, repo);
  }
  tw_region_leave_printf("dir", "read_recursive", repo, "%s", base.c_str());
}

void Preload(int index, int repo) {
  tracewire::ThreadScope thread("preload_index");
  tracewire::RegionScope region("index", "preload", repo);
  int entries = 0;
  for (int i = 0; i < 1000; ++i) entries += (i * index) % 7 == 0;
  tracewire::Data("index", "preload/sum_lstat", entries, repo);
  tw_counter_add(g_counter_files, static_cast<uint64_t>(entries));
}

int RunChild() {
  tw_region_enter("child", "work", TW_NO_REPO);
  tw_data_intmax("child", TW_NO_REPO, "answer", 42);
  tw_region_leave("child", "work", TW_NO_REPO);
  return 0;
}

int RunStatus(const char* self) {
  const int repo = tw_def_repo("/tmp/demo-worktree");
  tw_def_param("core.editor", "vi", "global");
  tw_def_param("remote.origin.url", "https://user:secret@example.com/repo.git", "local");

  tw_region_enter("status", "worktree", repo);
  {
    tracewire::RegionScope index_region("index", "do_read_index", repo);
    tw_data_intmax("index", repo, "read/cache_nr", 31);
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) threads.emplace_back(Preload, i, repo);
    for (std::thread& t : threads) t.join();
  }
  ReadRecursive("", 3, repo);
  tw_data_json("status", repo, "summary", "{\"changed\":2,\"untracked\":[\"a\",\"b\"]}");
  tw_region_leave("status", "worktree", repo);

  // A traced child process: this program again.
  const char* child_argv[] = {self, "child", nullptr};
  tw_child child{};
  child.argv = child_argv;
  child.child_class = "demo";
  tw_child_start(&child);
  std::vector<std::string> words;
  if (const char* prefix = getenv("DEMO_EXEC_PREFIX")) {
    for (const char* p = prefix; *p != '\0';) {
      const size_t n = strcspn(p, " ");
      if (n > 0) words.emplace_back(p, n);
      p += n + (p[n] == ' ' ? 1 : 0);
    }
  }
  std::vector<char*> exec_argv;
  for (std::string& w : words) exec_argv.push_back(w.data());
  for (const char* arg : child_argv) exec_argv.push_back(const_cast<char*>(arg));
  const pid_t pid = fork();
  if (pid == 0) {
    execvp(exec_argv[0], exec_argv.data());
    _exit(127);
  }
  child.pid = pid;
  int status = 0;
  waitpid(pid, &status, 0);
  tw_child_exit(&child, WIFEXITED(status) ? WEXITSTATUS(status) : -1);

  tw_printf("status done in %d steps", 3);
  tw_cmd_error("pathspec '%s' did not match any file(s)", "nonexistent.txt");
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(const_cast<const char**>(argv));
  g_timer_hash = tw_timer_define("demo", "read_recursive", /*per_thread=*/0);
  g_counter_files = tw_counter_define("demo", "files", /*per_thread=*/1);
  const bool is_child = argc > 1 && strcmp(argv[1], "child") == 0;
  tw_cmd_name(is_child ? "child" : "status");
  const int code = is_child ? RunChild() : RunStatus(argv[0]);
  return tw_cmd_exit(code);
}
