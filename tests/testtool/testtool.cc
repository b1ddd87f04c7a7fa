// //tests/testtool — a conformance driver with the verbs of git's `test-tool trace2`
// (t/helper/test-trace2.c), so decoded output can be compared with git's expectations.
//
//   testtool trace2 001return <code>              return <code> from main
//   testtool trace2 002exit <code>                exit(<code>) directly
//   testtool trace2 003error <msg>...             one error("%s", msg) per argument
//   testtool trace2 004child <cmd> [<arg>...]     run a child command, exit with its code
//   testtool trace2 005exec <cmd> [<arg>...]      exec a command (exec event, then execvp)
//   testtool trace2 006data (<cat> <key> <value>)...  data events with repo id 0
//   testtool trace2 007bug                        error "the bug message", exit code 99
//   testtool trace2 100timer <count> <ms>         process-wide timer test/test1
//   testtool trace2 101timer <count> <ms> <threads>   per-thread timer test/test2
//   testtool trace2 200counter <value>...         process-wide counter test/test1
//   testtool trace2 201counter <v1> <v2> <threads>    per-thread counter test/test2
//   testtool trace2 config (<scope> <key>[=<value>])...   tells the settings, then lists
//   testtool trace2 stacks <count>                 region stack/leaf entered <count> times
//                                                  from StackLeaf <- StackMiddle (static
//                                                  functions: not in the dynamic symbols)
//
// Like git's test-tool, every verb records the def_param events of tw_cmd_list_config and
// tw_cmd_list_env_vars after cmd_name (TRACEWIRE_CONFIG_PARAMS, TRACEWIRE_ENV_VARS).
//
// Tracing is configured by TRACEWIRE and the TRACEWIRE_* settings (docs/api.md). Exit code
// 129 means a usage error.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "tracewire/tracewire.h"

namespace {

constexpr int kUsageError = 129;

int g_timer_test1 = -1;
int g_timer_test2 = -1;
int g_counter_test1 = -1;
int g_counter_test2 = -1;

bool ParseInt(const char* text, int* value) { return absl::SimpleAtoi(text, value); }

int Usage(const char* message) {
  fprintf(stderr, "testtool: %s\n", message);
  return kUsageError;
}

void SleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

int Return(int argc, char** argv) {
  int code;
  if (argc != 1 || !ParseInt(argv[0], &code)) return Usage("001return <code>");
  return code;
}

int Exit(int argc, char** argv) {
  int code;
  if (argc != 1 || !ParseInt(argv[0], &code)) return Usage("002exit <code>");
  exit(tw_cmd_exit(code));
}

int Error(int argc, char** argv) {
  if (argc == 0) return Usage("003error <msg>...");
  for (int i = 0; i < argc; ++i) tw_cmd_error("%s", argv[i]);
  return 0;
}

int Child(int argc, char** argv) {
  if (argc == 0) return Usage("004child <cmd> [<arg>...]");
  std::vector<const char*> child_argv(argv, argv + argc);
  child_argv.push_back(nullptr);
  tw_child child{};
  child.argv = child_argv.data();
  tw_child_start(&child);
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    execvp(child_argv[0], const_cast<char* const*>(child_argv.data()));
    _exit(127);
  }
  child.pid = pid;
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) {
    child.pid = -1;
    tw_child_exit(&child, -1);
    return -1;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  tw_child_exit(&child, code);
  return code;
}

int Exec(int argc, char** argv) {
  if (argc == 0) return Usage("005exec <cmd> [<arg>...]");
  std::vector<const char*> exec_argv(argv, argv + argc);
  exec_argv.push_back(nullptr);
  const int exec_id = tw_exec(argv[0], exec_argv.data());
  execvp(argv[0], const_cast<char* const*>(exec_argv.data()));
  tw_exec_result(exec_id, errno);
  return 1;
}

int Data(int argc, char** argv) {
  if (argc == 0 || argc % 3 != 0) return Usage("006data (<cat> <key> <value>)...");
  for (int i = 0; i < argc; i += 3) {
    tw_data_string(argv[i], /*repo_id=*/0, argv[i + 1], argv[i + 2]);
  }
  return 0;
}

int Bug(int argc, char** argv) {
  tw_cmd_error("the bug message");
  return 99;
}

void TimerLoop(int timer, int count, int ms) {
  for (int i = 0; i < count; ++i) {
    tw_timer_start(timer);
    SleepMs(ms);
    tw_timer_stop(timer);
  }
}

int Timer100(int argc, char** argv) {
  int count, ms;
  if (argc != 2 || !ParseInt(argv[0], &count) || !ParseInt(argv[1], &ms)) {
    return Usage("100timer <count> <ms>");
  }
  TimerLoop(g_timer_test1, count, ms);
  return 0;
}

int Timer101(int argc, char** argv) {
  int count, ms, threads;
  if (argc != 3 || !ParseInt(argv[0], &count) || !ParseInt(argv[1], &ms) ||
      !ParseInt(argv[2], &threads)) {
    return Usage("101timer <count> <ms> <threads>");
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([=] {
      tw_thread_start("ut_101");
      TimerLoop(g_timer_test2, count, ms);
      tw_thread_exit();
    });
  }
  for (std::thread& w : workers) w.join();
  return 0;
}

int Counter200(int argc, char** argv) {
  if (argc == 0) return Usage("200counter <value>...");
  for (int i = 0; i < argc; ++i) {
    int value;
    if (!ParseInt(argv[i], &value)) return Usage("200counter <value>...");
    tw_counter_add(g_counter_test1, static_cast<uint64_t>(value));
  }
  return 0;
}

int Counter201(int argc, char** argv) {
  int v1, v2, threads;
  if (argc != 3 || !ParseInt(argv[0], &v1) || !ParseInt(argv[1], &v2) ||
      !ParseInt(argv[2], &threads)) {
    return Usage("201counter <v1> <v2> <threads>");
  }
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([=] {
      tw_thread_start("ut_201");
      tw_counter_add(g_counter_test2, static_cast<uint64_t>(v1));
      tw_counter_add(g_counter_test2, static_cast<uint64_t>(v2));
      tw_thread_exit();
    });
  }
  for (std::thread& w : workers) w.join();
  return 0;
}

// Static, never inlined, and not tail calls: their frames show in a captured stack, and
// only the executable's .symtab (not dladdr) names them.
__attribute__((noinline)) void StackLeaf(int i) {
  tw_region_enter("stack", "leaf", TW_NO_REPO);
  tw_region_leave("stack", "leaf", TW_NO_REPO);
  asm volatile("" : : "r"(i) : "memory");
}

__attribute__((noinline)) void StackMiddle(int i) {
  StackLeaf(i);
  asm volatile("" : : "r"(i) : "memory");
}

int Stacks(int argc, char** argv) {
  int count;
  if (argc != 1 || !ParseInt(argv[0], &count)) return Usage("stacks <count>");
  for (int i = 0; i < count; ++i) StackMiddle(i);
  return 0;
}

// Tells the settings given as (<scope> <key>[=<value>]) pairs (no '=': a valueless key).
int Config(int argc, char** argv) {
  if (argc % 2 != 0) return Usage("config (<scope> <key>[=<value>])...");
  for (int i = 0; i < argc; i += 2) {
    const std::string setting = argv[i + 1];
    const size_t equals = setting.find('=');
    const std::string key = setting.substr(0, equals);
    if (equals == std::string::npos) {
      tw_cmd_set_config_scope(key.c_str(), nullptr, argv[i]);
    } else {
      tw_cmd_set_config_scope(key.c_str(), setting.c_str() + equals + 1, argv[i]);
    }
  }
  return 0;
}

struct Verb {
  const char* name;
  int (*run)(int argc, char** argv);
};

constexpr Verb kVerbs[] = {
    {"001return", Return}, {"002exit", Exit},       {"003error", Error},
    {"004child", Child},   {"005exec", Exec},       {"006data", Data},
    {"007bug", Bug},       {"100timer", Timer100},  {"101timer", Timer101},
    {"200counter", Counter200}, {"201counter", Counter201}, {"stacks", Stacks},
};

}  // namespace

int main(int argc, char** argv) {
  tw_initialize_clock();
  tw_initialize();
  tw_cmd_start(const_cast<const char**>(argv));
  g_timer_test1 = tw_timer_define("test", "test1", /*per_thread=*/0);
  g_timer_test2 = tw_timer_define("test", "test2", /*per_thread=*/1);
  g_counter_test1 = tw_counter_define("test", "test1", /*per_thread=*/0);
  g_counter_test2 = tw_counter_define("test", "test2", /*per_thread=*/1);
  if (argc < 3 || strcmp(argv[1], "trace2") != 0) {
    return tw_cmd_exit(Usage("usage: testtool trace2 <verb> [<args>]"));
  }
  int config_status = 0;
  if (strcmp(argv[2], "config") == 0) config_status = Config(argc - 3, argv + 3);
  tw_cmd_name("trace2");
  tw_cmd_list_config();
  tw_cmd_list_env_vars();
  if (strcmp(argv[2], "config") == 0) return tw_cmd_exit(config_status);
  for (const Verb& verb : kVerbs) {
    if (strcmp(argv[2], verb.name) == 0) return tw_cmd_exit(verb.run(argc - 3, argv + 3));
  }
  return tw_cmd_exit(Usage("unknown verb"));
}
