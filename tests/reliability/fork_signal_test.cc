// Fatal signals that reach a program while it forks: the whole process group of
// fork_storm (a traced program that forks and re-executes itself all the time) gets
// SIGTERM, SIGINT or SIGQUIT at a random instant, as Ctrl-C or `timeout` sends them. After
// each run, every trace file of the directory must validate, and every process that got
// past tw_initialize must have its file: a forked child never writes its parent's data
// (the fatal-signal path checks that it runs in the process that owns the buffers).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "reader/reader.h"

namespace tracewire::reader {
namespace {

// Runs of the process tree (each takes 10-60 ms).
constexpr int kRuns = 500;

std::string Runfile(const std::string& path) {
  const char* dir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  return absl::StrCat(dir == nullptr ? "." : dir, "/", workspace == nullptr ? "tracewire" : workspace,
                      "/", path);
}

// What one run left.
struct RunResult {
  std::set<int> initialized;  // pids that reported themselves after tw_initialize
  std::string dir;
  int leader_status = 0;
};

// Reads the pid pipe `fd` into `text` until it holds `lines` lines (processes past
// tw_initialize) or the pipe ends. The deadline bounds hangs only.
void ReadPids(int fd, int lines, std::string* text) {
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  char buffer[4096];
  while (std::count(text->begin(), text->end(), '\n') < lines && absl::Now() < deadline) {
    pollfd ready = {fd, POLLIN, 0};
    if (poll(&ready, 1, 100) <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) return;
    text->append(buffer, n);
  }
}

// Starts fork_storm in a process group of its own with TRACEWIRE=dir, waits until
// `started` of its processes got past tw_initialize (0: not at all), signals the group with
// `signo` after `delay`, and waits until every process that holds the pid pipe (the whole
// tree) has ended.
RunResult RunOnce(const std::string& dir, int signo, absl::Duration delay, int started) {
  RunResult result;
  result.dir = dir;
  int pids[2];
  EXPECT_EQ(pipe(pids), 0);
  const std::string program = Runfile("tests/reliability/fork_storm");
  const pid_t leader = fork();
  if (leader == 0) {
    setpgid(0, 0);
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    close(pids[0]);
    dup2(pids[1], 3);
    if (pids[1] != 3) close(pids[1]);
    setenv("TRACEWIRE", dir.c_str(), 1);
    setenv("FORK_STORM_PIDS", "3", 1);
    setenv("TRACEWIRE_GENERATION_MS", "2", 1);  // generations cut all the time
    setenv("FORK_STORM_DEBUG", "1", 1);
    const std::string log = dir + ".stderr";
    const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (err >= 0) dup2(err, 2);
    execl(program.c_str(), program.c_str(), "2", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(leader, leader);
  close(pids[1]);
  std::string text;
  ReadPids(pids[0], started, &text);
  absl::SleepFor(delay);
  killpg(leader, signo);
  // The processes' pids, until every one of them has exited (end of file on the pipe).
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(pids[0], buffer, sizeof(buffer));
    if (n <= 0) break;
    text.append(buffer, n);
  }
  close(pids[0]);
  int status = 0;
  EXPECT_EQ(waitpid(leader, &status, 0), leader);
  result.leader_status = status;
  // Orphaned descendants were re-parented to this process (a subreaper): reap them.
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    int pid = 0;
    if (absl::SimpleAtoi(line, &pid)) result.initialized.insert(pid);
  }
  return result;
}

// The pid in a trace file's name ("...-P000074cc", maybe with a ".N" suffix), or -1.
int PidOfFile(const std::string& name) {
  const size_t at = name.rfind("-P");
  if (at == std::string::npos) return -1;
  int pid = 0;
  const std::string hex = name.substr(at + 2, 8);
  return absl::SimpleHexAtoi(hex, &pid) ? pid : -1;
}

TEST(ForkSignalTest, EveryTraceValidatesAndEveryInitializedProcessHasItsFile) {
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  std::mt19937 random(1234);
  const int signals[] = {SIGTERM, SIGINT, SIGQUIT};
  const std::string base = absl::StrCat(::testing::TempDir(), "/fork_signal");
  std::filesystem::create_directories(base);
  int files = 0;
  int processes = 0;
  for (int run = 0; run < kRuns; ++run) {
    const std::string dir = absl::StrCat(base, "/", run);
    ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
    const int signo = signals[run % 3];
    // 0.5 to 25 ms: within start-up, the first forks and the busy middle. Every other run
    // counts them from the moment three processes of the tree got past tw_initialize (the
    // leader, its first re-executed child and that one's), so that the runs trace process
    // trees however slowly a loaded machine starts them.
    const absl::Duration delay =
        absl::Microseconds(std::uniform_int_distribution<int>(500, 25000)(random));
    const int started = run % 2 == 1 ? 3 : 0;
    const RunResult result = RunOnce(dir, signo, delay, started);
    SCOPED_TRACE(absl::StrFormat("run %d: signal %d after %s from %d processes started, %s", run,
                                 signo, absl::FormatDuration(delay), started, dir));
    // No process of the tree hung (fork_storm reports a child stuck for 5 s).
    const std::string log = dir + ".stderr";
    std::string errors;
    if (FILE* f = fopen(log.c_str(), "r")) {
      char line[512];
      while (fgets(line, sizeof(line), f) != nullptr) errors += line;
      fclose(f);
    }
    EXPECT_EQ(errors.find("did not end"), std::string::npos) << errors;
    std::set<int> with_file;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string path = entry.path().string();
      const std::string name = entry.path().filename().string();
      ++files;
      // (A process killed inside tw_initialize, before it reported itself, may have one.)
      const int pid = PidOfFile(name);
      EXPECT_GT(pid, 0) << name;
      EXPECT_TRUE(with_file.insert(pid).second) << name << ": a second file of one process";
      absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenFileSource(path);
      ASSERT_TRUE(source.ok()) << source.status();
      Reader reader(std::move(*source));
      absl::Status status;
      while (true) {
        absl::StatusOr<const Event*> event = reader.Next();
        if (!event.ok()) {
          status = event.status();
          break;
        }
        if (*event == nullptr) break;
        EXPECT_EQ(PidOfFile(std::string((*event)->sid)), pid) << name << ": another process's event";
      }
      EXPECT_TRUE(status.ok()) << name << " (" << std::filesystem::file_size(path)
                               << " bytes): " << status;
    }
    processes += static_cast<int>(result.initialized.size());
    for (int pid : result.initialized) {
      EXPECT_TRUE(with_file.count(pid) == 1) << "process " << pid << " has no trace file";
    }
    if (::testing::Test::HasFailure()) break;
  }
  // The runs did trace a process tree.
  EXPECT_GT(processes, kRuns);
  EXPECT_GE(files, processes);
}

}  // namespace
}  // namespace tracewire::reader
