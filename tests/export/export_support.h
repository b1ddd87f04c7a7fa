// Helpers of the exporter, follow and collector tests: paths of the real binaries in the
// runfiles, running them with a tracing environment, temporary directories, and driving a
// formatter over a reader.
#ifndef TRACEWIRE_TESTS_EXPORT_EXPORT_SUPPORT_H_
#define TRACEWIRE_TESTS_EXPORT_EXPORT_SUPPORT_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "reader/targets/formatter.h"

namespace tracewire::testing {

// The runfiles path of a binary of this workspace, e.g. Tool("examples/demo/demo").
std::string Tool(const std::string& workspace_path);

// A fresh empty directory under TEST_TMPDIR (or /tmp).
std::string TempDir(const std::string& name);

// A path for a Unix socket: under TEST_TMPDIR if short enough (sun_path is 108 bytes),
// else under /tmp.
std::string SocketPath(const std::string& name);

// Starts `argv` with `env` applied on top of this process's environment (an empty value
// unsets the variable). TRACEWIRE_PARENT_SID and TRACEWIRE_PARENT_NAME are always unset
// unless `env` sets them, so every run starts its own process tree.
pid_t Spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);

// Waits for `pid`; returns its exit code (128 + signal if killed), -1 after 120 s (then it
// is killed).
int Wait(pid_t pid);

// Spawn + Wait.
int RunTool(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env);

// Formats the trace at `path` (a file: one Reader; a directory: ProcessTreeReader) with
// `formatter`, including Finish().
absl::StatusOr<std::string> FormatTrace(const std::string& path, targets::Formatter& formatter);

// Checks with gtest that the [begin, end] time spans of the slices of one track nest: each
// lies inside the enclosing one or after it. `where` names the track in failure messages.
void ExpectSpansNest(std::vector<std::pair<double, double>> spans, const std::string& where);

// Regular files of `dir` (full paths, sorted).
std::vector<std::string> FilesIn(const std::string& dir);

// The whole content of a file.
std::string ReadWholeFile(const std::string& path);

// Traces of //examples/demo and of a 3-level //tests/testtool process tree, each written
// once to one appended file and once to a directory of per-process files.
struct DemoAndTreeTraces {
  std::string demo_file;
  std::string demo_dir;
  std::string tree_file;
  std::string tree_dir;
};

// Records the DemoAndTreeTraces in fresh directories named after `prefix` (e.g.
// "chrome"), checking each run's exit code with gtest.
DemoAndTreeTraces RecordDemoAndTree(const std::string& prefix);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_EXPORT_EXPORT_SUPPORT_H_
