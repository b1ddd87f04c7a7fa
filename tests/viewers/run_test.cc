// `tracewire run COMMAND` end to end (live events of a process tree, exit codes, signals,
// usage), and the runtime's refusal to write binary trace data to a terminal.
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::viewers_test {
namespace {

using cli_test::CommandResult;
using cli_test::Lines;
using cli_test::ReadFile;
using cli_test::Runfile;
using cli_test::Tracewire;

cli_test::RunOptions Untraced() {
  cli_test::RunOptions options;
  options.unset_env = {"TRACEWIRE", "TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME",
                       "TRACEWIRE_TERMINAL_WARNED"};
  return options;
}

CommandResult RunTracewire(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Tracewire()};
  argv.insert(argv.end(), args.begin(), args.end());
  return cli_test::RunCommand(argv, Untraced());
}

// A process started in the background, stdout and stderr to files.
struct Background {
  pid_t pid = -1;
  std::string err_path;
};

Background Start(const std::vector<std::string>& argv, const std::string& dir) {
  Background b;
  b.err_path = dir + "/stderr";
  fflush(nullptr);
  b.pid = fork();
  if (b.pid == 0) {
    for (const char* name : {"TRACEWIRE", "TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"}) {
      unsetenv(name);
    }
    const int err = open(b.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(err, 2);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return b;
}

// The exit code of `pid` (128 + signal), or -1 after 60 s (then it is killed).
int WaitExit(pid_t pid) {
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (absl::Now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Waits until the file at `path` contains `text` (at most 60 s: a bound on hangs only).
bool WaitForText(const std::string& path, const std::string& text) {
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (!absl::StrContains(ReadFile(path), text)) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return true;
}

// The index of the first line of `lines` that contains all of `parts`, or -1.
int Find(const std::vector<std::string>& lines, std::vector<std::string> parts, int from = 0) {
  for (int i = from; i < static_cast<int>(lines.size()); ++i) {
    bool all = true;
    for (const std::string& part : parts) all = all && absl::StrContains(lines[i], part);
    if (all) return i;
  }
  return -1;
}

// A command (an untraced shell loop) that runs until the file `stop` exists (at most 60 s).
std::vector<std::string> UntilStopFile(const std::string& stop) {
  return {"/bin/sh", "-c",
          absl::StrCat("i=0; while [ ! -e ", stop, " ] && [ $i -lt 6000 ]; do sleep 0.01; ",
                       "i=$((i+1)); done")};
}

TEST(RunTest, PrintsTheProcessTreeInTimeOrderAndLosesNothing) {
  const std::string dir = cli_test::NewTempDir("run_demo");
  const std::string out = dir + "/perf.txt";
  const std::string kept = dir + "/traces";
  const CommandResult run = RunTracewire({"run", "-o", out, "--out", kept, Runfile("examples/demo/demo")});
  EXPECT_EQ(run.exit_code, 1) << "the demo's exit code\n" << run.err;
  EXPECT_EQ(run.err, "");
  const std::vector<std::string> lines = Lines(ReadFile(out));
  // PERF lines of the demo (d0) and of its child (d1): the child's events come between its
  // parent's child_start and child_exit, as they happened.
  const int child_start = Find(lines, {"| d0 |", "| child_start "});
  const int child_version = Find(lines, {"| d1 |", "| version "});
  const int child_atexit = Find(lines, {"| d1 |", "| atexit "});
  const int child_exit = Find(lines, {"| d0 |", "| child_exit "});
  ASSERT_GE(child_start, 0) << ReadFile(out);
  EXPECT_LT(child_start, child_version);
  EXPECT_LT(child_version, child_atexit);
  EXPECT_LT(child_atexit, child_exit);
  ASSERT_FALSE(lines.empty());
  EXPECT_TRUE(absl::StrContains(lines.back(), "| d0 |") &&
              absl::StrContains(lines.back(), "| atexit "))
      << lines.back();
  // Exactly the lines `decode --format=perf` writes for the traces it collected (in its
  // order, which merges processes by time too).
  const CommandResult decode = RunTracewire({"decode", "--format=perf", kept});
  ASSERT_EQ(decode.exit_code, 0) << decode.err;
  std::vector<std::string> decoded = Lines(decode.out);
  std::vector<std::string> printed = lines;
  std::sort(decoded.begin(), decoded.end());
  std::sort(printed.begin(), printed.end());
  EXPECT_EQ(printed, decoded);
  EXPECT_GE(Find(lines, {"| d0 |", "| region_enter "}), 0);
}

TEST(RunTest, PrintsToStderrByDefaultInTheChosenFormat) {
  const CommandResult perf =
      RunTracewire({"run", Runfile("tests/testtool/testtool"), "trace2", "001return", "0"});
  EXPECT_EQ(perf.exit_code, 0);
  EXPECT_EQ(perf.out, "");
  EXPECT_TRUE(absl::StrContains(perf.err, "| d0 | main ")) << perf.err;
  EXPECT_TRUE(absl::StrContains(perf.err, "| atexit ")) << perf.err;

  const CommandResult normal = RunTracewire(
      {"run", "--format=normal", "--brief", Runfile("tests/testtool/testtool"), "trace2", "001return", "0"});
  EXPECT_EQ(normal.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(normal.err, "\natexit elapsed:")) << normal.err;

  const CommandResult event = RunTracewire(
      {"run", "--format=event", "-o", "-", Runfile("tests/testtool/testtool"), "trace2", "001return", "0"});
  EXPECT_EQ(event.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(event.out, "{\"event\":\"atexit\",")) << event.out;
  EXPECT_EQ(event.err, "");
}

TEST(RunTest, ExitCodeIsTheCommands) {
  EXPECT_EQ(RunTracewire({"run", Runfile("tests/testtool/testtool"), "trace2", "001return", "7"}).exit_code,
            7);
  EXPECT_EQ(RunTracewire({"run", "/bin/sh", "-c", "kill -KILL $$"}).exit_code, 128 + SIGKILL);
  const CommandResult missing = RunTracewire({"run", "no-such-command-anywhere"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_TRUE(absl::StrContains(missing.err, "cannot run 'no-such-command-anywhere'"))
      << missing.err;
  EXPECT_EQ(RunTracewire({"run", "/"}).exit_code, 126);  // not executable
}

TEST(RunTest, FlagsComeBeforeTheCommand) {
  EXPECT_EQ(RunTracewire({"run"}).exit_code, 2);
  const CommandResult bad_format = RunTracewire({"run", "--format=chrome", "/bin/true"});
  EXPECT_EQ(bad_format.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(bad_format.err, "--format must be perf, normal or event"));
  // "-o x" after COMMAND is COMMAND's: testtool rejects the extra arguments (129).
  const std::string dir = cli_test::NewTempDir("run_flags");
  EXPECT_EQ(
      RunTracewire({"run", Runfile("tests/testtool/testtool"), "trace2", "001return", "0", "-o", dir + "/x"})
          .exit_code,
      129);
  EXPECT_EQ(ReadFile(dir + "/x"), "");
  // "--" ends the flags.
  EXPECT_EQ(RunTracewire({"run", "--", "/bin/sh", "-c", "exit 3"}).exit_code, 3);
  const CommandResult help = RunTracewire({"run", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(absl::StartsWith(help.out, "usage: tracewire run")) << help.out;
}

TEST(RunTest, EventsAppearWhileTheCommandRuns) {
  const std::string dir = cli_test::NewTempDir("run_live");
  const std::string out = dir + "/perf.txt";
  const std::string stop = dir + "/stop";
  std::vector<std::string> argv = {
      Tracewire(), "run", "-o", out, "--", Runfile("tests/testtool/testtool"), "trace2", "004child"};
  for (const std::string& arg : UntilStopFile(stop)) argv.push_back(arg);
  const Background run = Start(argv, dir);
  // The child_start is printed while the child still waits for the stop file.
  EXPECT_TRUE(WaitForText(out, "| child_start ")) << ReadFile(out) << ReadFile(run.err_path);
  EXPECT_FALSE(absl::StrContains(ReadFile(out), "| child_exit "));
  cli_test::WriteFile(stop, "");
  EXPECT_EQ(WaitExit(run.pid), 0) << ReadFile(run.err_path);
  const std::string text = ReadFile(out);
  EXPECT_TRUE(absl::StrContains(text, "| child_exit ")) << text;
  EXPECT_TRUE(absl::StrContains(text, "| atexit ")) << text;
}

TEST(RunTest, SigtermReachesTheCommand) {
  const std::string dir = cli_test::NewTempDir("run_term");
  const std::string out = dir + "/perf.txt";
  const std::string stop = dir + "/stop";
  std::vector<std::string> argv = {Tracewire(), "run",     "-o", out, Runfile("tests/testtool/testtool"),
                                   "trace2",    "004child"};
  for (const std::string& arg : UntilStopFile(stop)) argv.push_back(arg);
  const Background run = Start(argv, dir);
  ASSERT_TRUE(WaitForText(out, "| child_start ")) << ReadFile(run.err_path);
  kill(run.pid, SIGTERM);
  // testtool dies of the SIGTERM that tracewire passed on, after its runtime recorded it.
  EXPECT_EQ(WaitExit(run.pid), 128 + SIGTERM) << ReadFile(run.err_path);
  cli_test::WriteFile(stop, "");  // ends the orphaned shell loop
  EXPECT_TRUE(absl::StrContains(ReadFile(out), "| signal ")) << ReadFile(out);
}

// Runs the demo with TRACEWIRE=1 and its stderr on a new pseudo-terminal; returns what the
// terminal received.
std::string DemoOnATerminal() {
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  EXPECT_GE(master, 0);
  if (master < 0) return "";
  EXPECT_EQ(grantpt(master), 0);
  EXPECT_EQ(unlockpt(master), 0);
  const std::string slave_name = ptsname(master);
  const std::string demo = Runfile("examples/demo/demo");
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int slave = open(slave_name.c_str(), O_RDWR | O_NOCTTY);
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    dup2(slave, 2);
    close(master);
    for (const char* name :
         {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME", "TRACEWIRE_TERMINAL_WARNED"}) {
      unsetenv(name);
    }
    setenv("TRACEWIRE", "1", 1);
    execl(demo.c_str(), demo.c_str(), nullptr);
    _exit(127);
  }
  EXPECT_EQ(WaitExit(pid), 1);
  std::string received;
  fcntl(master, F_SETFL, O_NONBLOCK);
  char buffer[4096];
  ssize_t n;
  while ((n = read(master, buffer, sizeof(buffer))) > 0) received.append(buffer, n);
  close(master);
  return received;
}

TEST(TerminalTargetTest, NoBinaryOnATerminalAndOneWarning) {
  const std::string received = DemoOnATerminal();
  // The demo and its child both see TRACEWIRE=1 on the terminal: one warning in all.
  const std::string warning = "warning: tracewire: TRACEWIRE=1 is a terminal";
  ASSERT_TRUE(absl::StrContains(received, warning)) << received;
  EXPECT_EQ(received.find(warning), received.rfind(warning)) << received;
  EXPECT_TRUE(absl::StrContains(received, "tracewire run COMMAND")) << received;
  EXPECT_FALSE(absl::StrContains(received, "TWR")) << "no trace bytes: " << received;
  EXPECT_EQ(received.find('\0'), std::string::npos);

  // A pipe is not a terminal: the trace goes to stderr as before.
  cli_test::RunOptions options = Untraced();
  options.env = {{"TRACEWIRE", "1"}};
  const CommandResult piped = cli_test::RunCommand({Runfile("examples/demo/demo")}, options);
  EXPECT_EQ(piped.exit_code, 1);
  EXPECT_TRUE(absl::StartsWith(piped.err, "\x89TWR")) << piped.err.substr(0, 16);
}

}  // namespace
}  // namespace tracewire::viewers_test
