// Test support for the command-line tests: runs built binaries (found in the test's
// runfiles) and shell commands as child processes with captured output, and handles
// files in the test's temporary directory.
#ifndef TRACEWIRE_TESTS_CLI_CLI_RUNNER_H_
#define TRACEWIRE_TESTS_CLI_CLI_RUNNER_H_

#include <string>
#include <utility>
#include <vector>

namespace tracewire::cli_test {

// How a command ended and what it wrote.
struct CommandResult {
  int exit_code = -1;    // the exit status, or 128 + signal number
  std::string out;       // stdout
  std::string err;       // stderr
  long max_rss_kib = 0;  // peak resident set size of the command (getrusage of the child)
};

// How to run a command.
struct RunOptions {
  std::vector<std::pair<std::string, std::string>> env;  // set on top of the test's env
  std::vector<std::string> unset_env;                    // removed from the environment
  std::string cwd;                                       // "" = the test's cwd
  std::string stdin_path;                                // "" = /dev/null
  int timeout_seconds = 120;                             // SIGKILL after this (bounds hangs)
};

// Runs argv[0] (a path; not searched in PATH unless it has no '/') with `options`.
CommandResult RunCommand(const std::vector<std::string>& argv, const RunOptions& options = {});

// Runs `script` with /bin/sh -c.
CommandResult Shell(const std::string& script, const RunOptions& options = {});

// Path of a file of the workspace in the runfiles, e.g. "tools/tracewire".
std::string Runfile(const std::string& path);

// The tracewire binary.
inline std::string Tracewire() { return Runfile("tools/tracewire"); }

// A new empty directory under TEST_TMPDIR.
std::string NewTempDir(const std::string& name);

// Reads a whole file ("" if it cannot be read).
std::string ReadFile(const std::string& path);
// Writes a whole file; returns false on error.
bool WriteFile(const std::string& path, const std::string& contents);
// Splits text into lines without their '\n' (a final empty piece is dropped).
std::vector<std::string> Lines(const std::string& text);

// A TCP port of 127.0.0.1 that nothing listens on (bound, then closed again).
int UnusedLoopbackPort();

}  // namespace tracewire::cli_test

#endif  // TRACEWIRE_TESTS_CLI_CLI_RUNNER_H_
