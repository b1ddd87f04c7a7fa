#include "tests/export/export_support.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "reader/process_tree.h"
#include "reader/reader.h"

namespace tracewire::testing {

std::string Tool(const std::string& workspace_path) {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  return absl::StrCat(srcdir != nullptr ? srcdir : ".", "/",
                      workspace != nullptr ? workspace : "tracewire", "/", workspace_path);
}

namespace {

std::atomic<int> g_counter{0};

std::string TmpBase() {
  const char* base = getenv("TEST_TMPDIR");
  return base != nullptr ? base : "/tmp";
}

}  // namespace

std::string TempDir(const std::string& name) {
  const std::string dir = absl::StrCat(TmpBase(), "/", name, ".", getpid(), ".", g_counter++);
  mkdir(dir.c_str(), 0755);
  return dir;
}

std::string SocketPath(const std::string& name) {
  std::string path = absl::StrCat(TmpBase(), "/", name, ".", getpid(), ".", g_counter++, ".sock");
  if (path.size() >= 100) {
    path = absl::StrCat("/tmp/tw-", name, ".", getpid(), ".", g_counter++, ".sock");
  }
  unlink(path.c_str());
  return path;
}

pid_t Spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  fflush(nullptr);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  unsetenv("TRACEWIRE_PARENT_SID");
  unsetenv("TRACEWIRE_PARENT_NAME");
  for (const auto& [key, value] : env) {
    if (value.empty()) {
      unsetenv(key.c_str());
    } else {
      setenv(key.c_str(), value.c_str(), 1);
    }
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

int Wait(pid_t pid) {
  // A bound on hangs only: a tool under a sanitizer on a loaded machine can take seconds.
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  while (true) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (done < 0) return -1;
    if (absl::Now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
}

int RunTool(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
  return Wait(Spawn(argv, env));
}

namespace {

template <typename R>
absl::Status Drive(R& reader, targets::Formatter& formatter, std::string* out) {
  while (true) {
    absl::StatusOr<const reader::Event*> event = reader.Next();
    if (!event.ok()) return event.status();
    if (*event == nullptr) break;
    formatter.Write(**event, out);
  }
  formatter.Finish(out);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> FormatTrace(const std::string& path, targets::Formatter& formatter) {
  std::string out;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    absl::StatusOr<std::unique_ptr<reader::ProcessTreeReader>> tree =
        reader::ProcessTreeReader::OpenDirectory(path);
    if (!tree.ok()) return tree.status();
    if (absl::Status s = Drive(**tree, formatter, &out); !s.ok()) return s;
    return out;
  }
  absl::StatusOr<std::unique_ptr<reader::Reader>> file = reader::Reader::OpenFile(path);
  if (!file.ok()) return file.status();
  if (absl::Status s = Drive(**file, formatter, &out); !s.ok()) return s;
  return out;
}

void ExpectSpansNest(std::vector<std::pair<double, double>> spans, const std::string& where) {
  // Outer slices first at equal start times.
  std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  std::vector<double> open_ends;
  for (const auto& [begin, end] : spans) {
    while (!open_ends.empty() && open_ends.back() <= begin) open_ends.pop_back();
    if (!open_ends.empty()) {
      EXPECT_LE(end, open_ends.back()) << "slices overlap on " << where << " at " << begin;
    }
    open_ends.push_back(end);
  }
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      const std::string path = absl::StrCat(dir, "/", entry->d_name);
      struct stat st;
      if (entry->d_name[0] != '.' && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        files.push_back(path);
      }
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

DemoAndTreeTraces RecordDemoAndTree(const std::string& prefix) {
  DemoAndTreeTraces traces;
  const std::string demo = Tool("examples/demo/demo");
  const std::string testtool = Tool("tests/testtool/testtool");
  const std::vector<std::string> tree = {testtool,   "trace2", "004child", testtool,    "trace2",
                                         "004child", testtool, "trace2",   "001return", "0"};
  traces.demo_file = TempDir(prefix + "_demo") + "/trace.twr";
  traces.demo_dir = TempDir(prefix + "_demo_dir");
  traces.tree_file = TempDir(prefix + "_tree") + "/trace.twr";
  traces.tree_dir = TempDir(prefix + "_tree_dir");
  EXPECT_EQ(RunTool({demo}, {{"TRACEWIRE", traces.demo_file}}), 1);
  EXPECT_EQ(RunTool({demo}, {{"TRACEWIRE", traces.demo_dir}}), 1);
  EXPECT_EQ(RunTool(tree, {{"TRACEWIRE", traces.tree_file}}), 0);
  EXPECT_EQ(RunTool(tree, {{"TRACEWIRE", traces.tree_dir}}), 0);
  return traces;
}

}  // namespace tracewire::testing
