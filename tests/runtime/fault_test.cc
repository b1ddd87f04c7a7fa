// Faults of the destination and of the process, with a real traced program
// (fault_program, run with fork and exec): whatever happens to the trace, the program's
// stdout and exit code are those of an untraced run, it is never blocked for good, a
// failure warns once, and the trace keeps whole generations. Deadlines in these tests only
// bound a hang; nothing asserts on speed.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "format/varint.h"
#include "gtest/gtest.h"
#include "runtime/target.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"

namespace tracewire::testing {
namespace {

constexpr int kExitCode = 7;
constexpr const char* kTimeoutMs = "300";  // the destination's write bound in these tests
constexpr double kHangSeconds = 120;       // a run taking longer than this is a hang

std::string ProgramPath() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "tests/runtime/fault_program";
  return absl::StrCat(srcdir, "/", workspace, "/tests/runtime/fault_program");
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct RunOptions {
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // TRACEWIRE_* settings (all others unset)
  bool close_stderr = false;
  int pass_fd = -1;  // a descriptor of the test handed to the program under its number
  rlim_t file_size_limit = RLIM_INFINITY;
  // Called about every 10 ms with the program's stdout so far; returning true kills it.
  std::function<bool(const std::string& out)> kill_when;
  // Called about every 10 ms while the program runs (e.g. to accept connections).
  std::function<void()> on_tick;
  // Called about every 10 ms with the program's stdout so far (before on_tick).
  std::function<void(const std::string& out)> watch;
  // Called with the program's stdout so far until it returns true; then one byte is written
  // to the program's stdin (a pipe, otherwise empty).
  std::function<bool(const std::string& out)> release_when;
};

struct RunResult {
  int status = 0;
  std::string out;
  std::string err;
  bool hung = false;
};

// Runs fault_program and collects what it prints, killing it if it outlives kHangSeconds.
RunResult RunProgram(const RunOptions& options) {
  RunResult result;
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    abort();
  }
  const std::string program = ProgramPath();
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (!absl::StartsWith(*e, "TRACEWIRE")) env_strings.push_back(*e);
  }
  for (const auto& [key, value] : options.env) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings = {program};
  for (const std::string& a : options.args) arg_strings.push_back(a);
  std::vector<char*> argv;
  for (std::string& a : arg_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    if (options.close_stderr) {
      close(2);
    } else {
      dup2(err[1], 2);
    }
    if (options.pass_fd >= 0) fcntl(options.pass_fd, F_SETFD, 0);
    if (options.file_size_limit != RLIM_INFINITY) {
      const rlimit limit{options.file_size_limit, options.file_size_limit};
      setrlimit(RLIMIT_FSIZE, &limit);
    }
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  bool released = false;
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  const double start = Now();
  bool exited = false;
  auto drain = [](int fd, std::string* into) {
    char buffer[4096];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof(buffer))) > 0) into->append(buffer, n);
  };
  while (!exited) {
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    poll(fds, 2, 10);
    drain(out[0], &result.out);
    drain(err[0], &result.err);
    if (options.watch) options.watch(result.out);
    if (options.on_tick) options.on_tick();
    if (options.release_when && !released && options.release_when(result.out)) {
      released = write(in[1], "g", 1) == 1;
    }
    if (options.kill_when && options.kill_when(result.out)) kill(pid, SIGKILL);
    if (Now() - start > kHangSeconds) {
      result.hung = true;
      kill(pid, SIGKILL);
    }
    exited = waitpid(pid, &result.status, WNOHANG) == pid;
  }
  drain(out[0], &result.out);
  drain(err[0], &result.err);
  close(in[1]);
  close(out[0]);
  close(err[0]);
  return result;
}

// What fault_program prints for `events` steps with lines every `chunk` steps.
std::string ExpectedStdout(int64_t events, int64_t chunk) {
  std::string out;
  for (int64_t line = 0; line < events / chunk; ++line) absl::StrAppend(&out, "line ", line, "\n");
  return out + "done\n";
}

int CountWarnings(const std::string& err) {
  int count = 0;
  for (size_t at = err.find("warning: tracewire:"); at != std::string::npos;
       at = err.find("warning: tracewire:", at + 1)) {
    ++count;
  }
  return count;
}

// The program ran to its end, unchanged by whatever happened to its trace.
void ExpectUnchanged(const RunResult& run, int64_t events, int64_t chunk) {
  EXPECT_FALSE(run.hung) << "the traced program hung";
  ASSERT_TRUE(WIFEXITED(run.status)) << "status " << run.status << "; stderr: " << run.err;
  EXPECT_EQ(WEXITSTATUS(run.status), kExitCode) << run.err;
  EXPECT_EQ(run.out, ExpectedStdout(events, chunk));
}

std::map<std::string, std::string> Settings(const std::string& target) {
  return {{"TRACEWIRE", target},
          {"TRACEWIRE_WRITE_TIMEOUT_MS", kTimeoutMs},
          {"TRACEWIRE_GENERATION_MS", "1000000"}};  // generations cut by tw_flush only
}

// Runs `events` steps with a generation every `chunk` steps (tw_flush) against `target`
// with `options`' extras: the program runs unchanged and warns exactly once.
RunResult RunWarningOnce(const std::string& target, int64_t events, int64_t chunk,
                         RunOptions options = {}) {
  options.args.insert(options.args.begin(),
                      {absl::StrCat("--events=", events), absl::StrCat("--flush_every=", chunk)});
  options.env = Settings(target);
  RunResult run = RunProgram(options);
  ExpectUnchanged(run, events, chunk);
  EXPECT_EQ(CountWarnings(run.err), 1) << run.err;
  return run;
}

// The seq values the trace kept, which must be 0, 1, ..., n-1; returns n.
int64_t KeptSteps(const DecodedTrace& trace) {
  int64_t n = 0;
  for (const DecodedEvent& e : trace.Events("data_int")) {
    if (e.site.label != "seq") continue;
    EXPECT_EQ(format::ZigzagDecode(e.Arg("value")), n) << "steps kept out of order";
    ++n;
  }
  return n;
}

std::string TempPath(const std::string& name) { return MakeTempDir("fault") + "/" + name; }

// This test process's own mount namespace, so that it can mount file systems for a test
// without touching the machine's. False if it may not (not root).
bool PrivateMounts() {
  static const bool ok =
      unshare(CLONE_NEWNS) == 0 && mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
  return ok;
}

// ---- The process killed ---------------------------------------------------------------

TEST(FaultTest, SigkillKeepsEveryGenerationWrittenBeforeIt) {
  const std::string dir = MakeTempDir("sigkill");
  constexpr int64_t kChunk = 2000;
  constexpr int kLinesBeforeKill = 5;
  RunOptions options;
  options.args = {"--forever", absl::StrCat("--flush_every=", kChunk)};
  options.env = Settings(dir);
  // tw_flush() returns once its generation is written: every line printed vouches for
  // the generations before it.
  options.kill_when = [&](const std::string& out) {
    return std::count(out.begin(), out.end(), '\n') >= kLinesBeforeKill;
  };
  const RunResult run = RunProgram(options);
  EXPECT_FALSE(run.hung);
  ASSERT_TRUE(WIFSIGNALED(run.status) && WTERMSIG(run.status) == SIGKILL) << run.status;
  // Its stdout up to the kill is the untraced program's.
  const int64_t lines_seen = std::count(run.out.begin(), run.out.end(), '\n');
  ASSERT_GE(lines_seen, kLinesBeforeKill);
  EXPECT_TRUE(absl::StartsWith(ExpectedStdout(1'000'000 * kChunk, kChunk), run.out)) << run.out;
  EXPECT_EQ(CountWarnings(run.err), 0) << run.err;
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  const int64_t kept = KeptSteps(*trace);
  // Lost at most what was recorded after the last generation written.
  EXPECT_GE(kept, lines_seen * kChunk);
  EXPECT_EQ(kept % kChunk, 0) << "a generation was kept in part";
  EXPECT_TRUE(trace->Events("atexit").empty());
  // Whatever follows the last whole generation is a torn one, reported, never decoded.
  EXPECT_EQ(trace->tail_status.ok(), trace->complete_bytes == trace->total_bytes)
      << trace->tail_status;
}

// ---- Full disks -------------------------------------------------------------------------

TEST(FaultTest, DevFullTurnsTracingOffWithOneWarning) {
  const RunResult run = RunWarningOnce("/dev/full", 20000, 5000);
  EXPECT_TRUE(absl::StrContains(run.err, "ENOSPC")) << run.err;
}

// A directory target `dir` on a file system that fills up, ~56 KB generations: the file
// (the runtime's own) keeps the generations that fit, whole, and nothing after them.
RunResult RunOnFullDisk(const std::string& dir, RunOptions options = {}) {
  constexpr int64_t kEvents = 40000, kChunk = 4000;
  RunResult run = RunWarningOnce(dir, kEvents, kChunk, options);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
  EXPECT_TRUE(trace.ok()) << trace.status();
  if (!trace.ok()) return run;
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  EXPECT_EQ(trace->complete_bytes, trace->total_bytes);
  EXPECT_GE(trace->generations.size(), 1u);
  const int64_t kept = KeptSteps(*trace);
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, kEvents);
  EXPECT_EQ(kept % kChunk, 0);
  return run;
}

TEST(FaultTest, FullTmpfsKeepsWholeGenerations) {
  if (!PrivateMounts()) GTEST_SKIP() << "no private mount namespace (needs root)";
  const std::string dir = MakeTempDir("tmpfs");
  ASSERT_EQ(mount("tracewire-test", dir.c_str(), "tmpfs", 0, "size=256k"), 0) << strerror(errno);
  const RunResult run = RunOnFullDisk(dir);
  EXPECT_TRUE(absl::StrContains(run.err, "ENOSPC")) << run.err;
  umount(dir.c_str());
}

TEST(FaultTest, FileSizeLimitKeepsWholeGenerationsAndDoesNotKill) {
  // RLIMIT_FSIZE: a write past it fails with EFBIG and raises SIGXFSZ, whose default action
  // would kill the program.
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer's own runtime dies (SIGBUS) under a small RLIMIT_FSIZE";
#endif
  const std::string dir = MakeTempDir("fsize");
  RunOptions options;
  options.file_size_limit = 256 * 1024;
  const RunResult run = RunOnFullDisk(dir, options);
  EXPECT_TRUE(absl::StrContains(run.err, "EFBIG")) << run.err;
}

// ---- FIFOs --------------------------------------------------------------------------------

TEST(FaultTest, FifoNobodyOpensDoesNotBlock) {
  const std::string fifo = TempPath("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  RunOptions options;
  options.args = {"--events=2000"};
  options.env = Settings(fifo);
  const RunResult run = RunProgram(options);
  ExpectUnchanged(run, 2000, 1000);
  EXPECT_EQ(CountWarnings(run.err), 1) << run.err;
  EXPECT_TRUE(absl::StrContains(run.err, "no reader")) << run.err;
}

TEST(FaultTest, FifoNobodyReadsTimesOutAndKeepsWholeGenerations) {
  const std::string fifo = TempPath("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  RunWarningOnce(fifo, 40000, 2000);  // ~28 KB per generation; nobody reads meanwhile
  std::string bytes;
  char buffer[65536];
  ssize_t n;
  while ((n = read(reader, buffer, sizeof(buffer))) > 0) bytes.append(buffer, n);
  close(reader);
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_GE(trace->generations.size(), 1u);  // the pipe holds two, the third was cut off
  EXPECT_EQ(KeptSteps(*trace) % 2000, 0);
}

// A FIFO nobody reads until the program has recorded everything (a collector that stalls,
// though not past the write timeout): the generation being filled reaches its memory limit
// (8 generation sizes, at least 4 MiB) while the one before waits to be written, and is
// dropped whole. The trace stays valid, skips the dropped generations' numbers, and every
// step it lacks lies in such a gap; the program runs unchanged and nothing warns.
TEST(FaultTest, StalledReaderDropsWholeGenerationsPastTheMemoryLimit) {
  const std::string fifo = TempPath("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  std::string bytes;
  char buffer[65536];
  // Reads what is there; true at the end of the file (the writer closed it).
  auto drain = [&] {
    for (;;) {
      const ssize_t n = read(reader, buffer, sizeof(buffer));
      if (n <= 0) return n == 0;
      bytes.append(buffer, n);
    }
  };
  // While the reader stalls, the runtime holds at most two generations: the one it is
  // writing and the one being filled, each under the memory limit (4 MiB here), plus a
  // batch per thread and the tables; the FIFO holds 64 KiB more. About 14 MB of trace
  // exceeds all of that whatever the machine's speed and wherever the cuts fall.
  constexpr int64_t kEvents = 1'000'000;
  constexpr size_t kMemoryLimit = 4 << 20;
  RunOptions options;
  options.args = {absl::StrCat("--events=", kEvents)};
  options.env = {{"TRACEWIRE", fifo},
                 {"TRACEWIRE_WRITE_TIMEOUT_MS", "100000"},
                 {"TRACEWIRE_GENERATION_BYTES", "65536"}};
  // Its last line comes after its last step ("done" stays in its stdout buffer until the
  // exit, which waits for the reader).
  const std::string last_line = absl::StrCat("line ", kEvents / 1000 - 1, "\n");
  bool recorded = false;
  options.watch = [&](const std::string& out) { recorded = absl::StrContains(out, last_line); };
  options.on_tick = [&] {
    if (recorded) drain();
  };
  const RunResult run = RunProgram(options);
  ExpectUnchanged(run, kEvents, 1000);
  EXPECT_EQ(CountWarnings(run.err), 0) << run.err;
  while (!drain()) usleep(1000);
  close(reader);

  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  ASSERT_FALSE(trace->generations.empty());
  // Generations are numbered from 1: a trace that starts later dropped its first ones.
  int gaps = trace->generations.front().gen > 1 ? 1 : 0;
  for (size_t i = 1; i < trace->generations.size(); ++i) {
    EXPECT_GT(trace->generations[i].gen, trace->generations[i - 1].gen);
    if (trace->generations[i].gen > trace->generations[i - 1].gen + 1) ++gaps;
  }
  EXPECT_GT(gaps, 0) << "no generation was dropped: " << bytes.size() << " bytes";
  EXPECT_LT(bytes.size(), 2 * kMemoryLimit + (1u << 20)) << "more than the limit allows";
  // Steps in order; a step missing only where a generation number is.
  int64_t next = 0;
  uint64_t previous_gen = 0;
  for (const DecodedEvent& e : trace->Events("data_int")) {
    if (e.site.label != "seq") continue;
    const int64_t seq = format::ZigzagDecode(e.Arg("value"));
    if (seq != next) {
      EXPECT_GT(seq, next) << "steps out of order";
      EXPECT_GT(e.gen, previous_gen + 1)
          << "steps " << next << ".." << seq - 1 << " missing between generations " << previous_gen
          << " and " << e.gen << ", which are consecutive";
    }
    next = seq + 1;
    previous_gen = e.gen;
  }
  printf("%zu bytes, %zu generations, %d gaps, last step kept %lld\n", bytes.size(),
         trace->generations.size(), gaps, static_cast<long long>(next - 1));
}

// ---- File descriptors -------------------------------------------------------------------

TEST(FaultTest, ClosedFdTargetLeavesTracingOff) {
  RunOptions options;
  options.args = {"--events=2000"};
  options.env = Settings("5");  // fd 5 is not open in the program
  const RunResult run = RunProgram(options);
  ExpectUnchanged(run, 2000, 1000);
  EXPECT_EQ(CountWarnings(run.err), 0) << run.err;
}

TEST(FaultTest, FdClosedAndReusedByTheProgramIsNeverWritten) {
  const std::string dir = MakeTempDir("reuse");
  const std::string trace_path = dir + "/trace";
  const std::string own_path = dir + "/own";
  const int fd = open(trace_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(dup2(fd, 5), 5);
  close(fd);
  RunOptions options;
  options.args = {"--reuse_fd=5:" + own_path};
  options.pass_fd = 5;
  RunWarningOnce("5", 20000, 5000, options);
  close(5);
  // The program's own file under the trace's old number holds the program's bytes only.
  EXPECT_EQ(ReadFile(own_path), "program data\n");
  // The trace holds the two generations written before the program took the number.
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  EXPECT_EQ(KeptSteps(*trace), 10000);
}

TEST(FaultTest, BrokenPipeTurnsTracingOffWithOneWarning) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ASSERT_EQ(dup2(fds[1], 5), 5);
  close(fds[1]);
  close(fds[0]);  // nobody will ever read: writes fail with EPIPE (and raise SIGPIPE)
  RunOptions options;
  options.pass_fd = 5;
  const RunResult run = RunWarningOnce("5", 20000, 5000, options);
  close(5);
  EXPECT_TRUE(absl::StrContains(run.err, "EPIPE")) << run.err;
}

TEST(FaultTest, StderrClosedBeforeInitializeNeverReceivesTheTrace) {
  const std::string dir = MakeTempDir("nostderr");
  const std::string path = dir + "/trace";
  RunOptions options;
  options.args = {"--events=4000", "--flush_every=2000", "--stderr_lines"};
  options.env = Settings(path);
  options.close_stderr = true;
  const RunResult run = RunProgram(options);
  ExpectUnchanged(run, 4000, 2000);
  const std::string bytes = ReadFile(path);
  EXPECT_FALSE(absl::StrContains(bytes, "the program's own")) << "stderr landed in the trace";
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  EXPECT_EQ(trace->complete_bytes, trace->total_bytes);
  EXPECT_EQ(KeptSteps(*trace), 4000);
  EXPECT_EQ(trace->Events("atexit").size(), 1u);
}

// ---- Directories ----------------------------------------------------------------------------

TEST(FaultTest, UnwritableDirectoryLeavesTracingOff) {
  const std::string dir = MakeTempDir("readonly");
  if (PrivateMounts()) {
    // Read-only even for root.
    ASSERT_EQ(mount("tracewire-test", dir.c_str(), "tmpfs", MS_RDONLY, "size=64k"), 0)
        << strerror(errno);
  } else {
    ASSERT_EQ(chmod(dir.c_str(), 0555), 0);
  }
  for (const bool debug : {false, true}) {
    RunOptions options;
    options.args = {"--events=2000"};
    options.env = Settings(dir);
    if (debug) options.env["TRACEWIRE_DST_DEBUG"] = "1";
    const RunResult run = RunProgram(options);
    ExpectUnchanged(run, 2000, 1000);
    // Like git, silent unless TRACEWIRE_DST_DEBUG asks.
    EXPECT_EQ(CountWarnings(run.err), debug ? 1 : 0) << run.err;
  }
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  int entries = 0;
  while (dirent* entry = readdir(d)) entries += entry->d_name[0] != '.';
  closedir(d);
  EXPECT_EQ(entries, 0);
  umount(dir.c_str());
}

TEST(FaultTest, PlantedSymlinkIsNeverFollowed) {
  const std::string dir = MakeTempDir("symlink");
  const std::string victim = dir + ".victim";
  {
    FILE* f = fopen(victim.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs("victim", f);
    fclose(f);
  }
  const std::string name = "20260101T000000.000000Z-H01234567-P00000001";
  ASSERT_EQ(symlink(victim.c_str(), (dir + "/" + name).c_str()), 0);
  std::optional<runtime::TargetSpec> spec = runtime::ParseTarget(dir);
  ASSERT_TRUE(spec.has_value());
  {
    runtime::Destination destination;
    bool too_many = false;
    ASSERT_TRUE(destination.Open(*spec, name, 0, &too_many).ok());
    EXPECT_EQ(destination.path(), dir + "/" + name + ".1");
    EXPECT_TRUE(destination.Write("trace", 5));
  }
  EXPECT_EQ(ReadFile(victim), "victim");
  // Every name planted: no file at all, the victim untouched.
  for (int i = 2; i <= 9; ++i) {
    ASSERT_EQ(symlink(victim.c_str(), absl::StrCat(dir, "/", name, ".", i).c_str()), 0);
  }
  unlink((dir + "/" + name + ".1").c_str());
  ASSERT_EQ(symlink(victim.c_str(), (dir + "/" + name + ".1").c_str()), 0);
  runtime::Destination destination;
  bool too_many = false;
  EXPECT_FALSE(destination.Open(*spec, name, 0, &too_many).ok());
  EXPECT_EQ(ReadFile(victim), "victim");
  // The too-many-files sentinel is never written through a symlink either.
  const std::string other = MakeTempDir("sentinel");
  ASSERT_EQ(symlink(victim.c_str(), (other + "/tracewire-discard").c_str()), 0);
  std::optional<runtime::TargetSpec> other_spec = runtime::ParseTarget(other);
  ASSERT_TRUE(other_spec.has_value());
  runtime::Destination sentinel;
  EXPECT_FALSE(sentinel.Open(*other_spec, name, 1, &too_many).ok());
  EXPECT_EQ(ReadFile(victim), "victim");
}

// ---- Unix sockets -------------------------------------------------------------------------

sockaddr_un UnixAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  return addr;
}

int Listen(const std::string& path, int type, int backlog) {
  const int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  const sockaddr_un addr = UnixAddress(path);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) return -1;
  if (type == SOCK_STREAM && listen(fd, backlog) != 0) return -1;
  return fd;
}

// A socket path short enough for sun_path.
std::string SocketPath(const std::string& name) {
  const std::string dir = absl::StrCat("/tmp/twfault.", getpid(), ".", rand());
  mkdir(dir.c_str(), 0700);
  return dir + "/" + name;
}

TEST(FaultTest, SocketWithoutListenerLeavesTracingOff) {
  const std::string missing = SocketPath("missing.sock");
  const std::string refused = SocketPath("refused.sock");
  close(Listen(refused, SOCK_STREAM, 1));  // the file stays, nobody listens
  for (const std::string& path : {missing, refused}) {
    RunOptions options;
    options.args = {"--events=2000"};
    options.env = Settings("af_unix:" + path);
    const RunResult run = RunProgram(options);
    ExpectUnchanged(run, 2000, 1000);
    EXPECT_EQ(CountWarnings(run.err), 0) << run.err;
  }
}

TEST(FaultTest, StreamListenerThatNeverReadsTimesOut) {
  const std::string path = SocketPath("s.sock");
  const int listener = Listen(path, SOCK_STREAM, 4);
  ASSERT_GE(listener, 0) << strerror(errno);
  fcntl(listener, F_SETFL, O_NONBLOCK);
  std::vector<int> accepted;
  RunOptions options;
  options.on_tick = [&] {
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) accepted.push_back(fd);  // accepted, never read
  };
  // ~280 KB per generation, more than the socket buffers hold.
  RunWarningOnce("af_unix:stream:" + path, 100000, 20000, options);
  EXPECT_EQ(accepted.size(), 1u);
  for (int fd : accepted) close(fd);
  close(listener);
}

TEST(FaultTest, StreamListenerThatNeverAcceptsTimesOut) {
  const std::string path = SocketPath("s.sock");
  const int listener = Listen(path, SOCK_STREAM, 4);
  ASSERT_GE(listener, 0) << strerror(errno);
  RunWarningOnce("af_unix:stream:" + path, 100000, 20000);  // connected, never accepted
  close(listener);
}

TEST(FaultTest, ExitWriteToAListenerThatNeverAcceptsIsBounded) {
  const std::string path = SocketPath("s.sock");
  const int listener = Listen(path, SOCK_STREAM, 4);
  ASSERT_GE(listener, 0) << strerror(errno);
  RunOptions options;
  options.args = {"--events=100000"};  // no tw_flush: the one write is at exit, ~1.4 MB
  options.env = Settings("af_unix:stream:" + path);
  const RunResult run = RunProgram(options);
  ExpectUnchanged(run, 100000, 1000);
  EXPECT_EQ(CountWarnings(run.err), 1) << run.err;
  close(listener);
}

TEST(FaultTest, StreamListenerWithFullBacklogTimesOut) {
  const std::string path = SocketPath("s.sock");
  const int listener = Listen(path, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0) << strerror(errno);
  // One waiting connection fills a backlog of 0: the next connect would block.
  const int queued = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  const sockaddr_un addr = UnixAddress(path);
  ASSERT_EQ(connect(queued, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
  const RunResult run = RunWarningOnce("af_unix:stream:" + path, 2000, 1000);
  EXPECT_TRUE(absl::StrContains(run.err, "accepted no connection")) << run.err;
  close(queued);
  close(listener);
}

TEST(FaultTest, DatagramReceiverThatNeverReadsTimesOut) {
  const std::string path = SocketPath("d.sock");
  const int receiver = Listen(path, SOCK_DGRAM, 0);
  ASSERT_GE(receiver, 0) << strerror(errno);
  RunWarningOnce("af_unix:dgram:" + path, 100000, 20000);
  close(receiver);
}

TEST(FaultTest, StreamPeerClosingTurnsTracingOffWithOneWarning) {
  const std::string path = SocketPath("s.sock");
  const int listener = Listen(path, SOCK_STREAM, 4);
  ASSERT_GE(listener, 0) << strerror(errno);
  fcntl(listener, F_SETFL, O_NONBLOCK);
  RunOptions options;
  options.args = {"--wait_after_first_line"};
  // After the first generation, the listener hangs up; the program then goes on.
  options.release_when = [&](const std::string& out) {
    if (out.empty()) return false;
    const int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return false;
    close(fd);
    return true;
  };
  const RunResult run = RunWarningOnce("af_unix:stream:" + path, 20000, 5000, options);
  EXPECT_TRUE(absl::StrContains(run.err, "EPIPE") || absl::StrContains(run.err, "ECONNRESET"))
      << run.err;
  close(listener);
}

}  // namespace
}  // namespace tracewire::testing
