// A trace file created in a directory appears under its name holding its file header, or
// not at all (runtime/published_file.h, and the directory target that uses it); and
// processes killed at any instant leave no empty or header-less trace file.
#include "runtime/published_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "format/constants.h"
#include "format/file_header_encoder.h"
#include "gtest/gtest.h"
#include "runtime/target.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"

namespace tracewire::testing {
namespace {

using runtime::UnnamedFile;

constexpr char kHeader[] = "0123456789abcdef";  // 16 bytes standing for a file header

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return names;
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

void WriteFile(const std::string& path, const std::string& contents) {
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  fwrite(contents.data(), 1, contents.size(), f);
  fclose(f);
}

// Runs each test with O_TMPFILE and, as where a filesystem lacks it, temporary names.
class PublishedFileTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { runtime::UseTemporaryNamesForTesting(GetParam()); }
  void TearDown() override { runtime::UseTemporaryNamesForTesting(false); }
};

TEST_P(PublishedFileTest, TheNameAppearsWithTheHeaderInTheFile) {
  const std::string dir = MakeTempDir("publish");
  UnnamedFile file;
  ASSERT_TRUE(runtime::CreateUnnamedFile(dir.c_str(), kHeader, 16, &file)) << strerror(errno);
  // Not yet under any trace's name (a hidden temporary one at most, holding the header).
  for (const std::string& name : ListDir(dir)) {
    EXPECT_TRUE(GetParam() && absl::StartsWith(name, ".tracewire-")) << name;
    EXPECT_EQ(ReadFile(dir + "/" + name), kHeader);
  }
  const std::string path = dir + "/trace";
  ASSERT_TRUE(runtime::NameFile(&file, path.c_str())) << strerror(errno);
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"trace"});
  EXPECT_EQ(ReadFile(path), kHeader);
  ASSERT_EQ(write(file.fd, "more", 4), 4);
  close(file.fd);
  EXPECT_EQ(ReadFile(path), std::string(kHeader) + "more");
}

TEST_P(PublishedFileTest, ExistingEntriesAreNeverReplacedNorFollowed) {
  const std::string dir = MakeTempDir("taken");
  const std::string victim = dir + ".victim";
  WriteFile(victim, "victim");
  WriteFile(dir + "/taken", "taken");
  ASSERT_EQ(symlink(victim.c_str(), (dir + "/planted").c_str()), 0);
  UnnamedFile file;
  ASSERT_TRUE(runtime::CreateUnnamedFile(dir.c_str(), kHeader, 16, &file));
  EXPECT_FALSE(runtime::NameFile(&file, (dir + "/taken").c_str()));
  EXPECT_EQ(errno, EEXIST);
  EXPECT_FALSE(runtime::NameFile(&file, (dir + "/planted").c_str()));
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(ReadFile(dir + "/taken"), "taken");
  EXPECT_EQ(ReadFile(victim), "victim");
  // The same file then takes a free name.
  ASSERT_TRUE(runtime::NameFile(&file, (dir + "/free").c_str()));
  close(file.fd);
  EXPECT_EQ(ReadFile(dir + "/free"), kHeader);
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"free", "planted", "taken"}));
}

TEST_P(PublishedFileTest, ADiscardedFileLeavesNothing) {
  const std::string dir = MakeTempDir("discard");
  UnnamedFile file;
  ASSERT_TRUE(runtime::CreateUnnamedFile(dir.c_str(), kHeader, 16, &file));
  runtime::DiscardUnnamedFile(&file);
  EXPECT_EQ(file.fd, -1);
  EXPECT_TRUE(ListDir(dir).empty());
}

TEST_P(PublishedFileTest, NoFileInADirectoryThatIsNotThere) {
  const std::string dir = MakeTempDir("gone") + "/missing";
  UnnamedFile file;
  EXPECT_FALSE(runtime::CreateUnnamedFile(dir.c_str(), kHeader, 16, &file));
  EXPECT_EQ(errno, ENOENT);
}

TEST_P(PublishedFileTest, DirectoryTargetFileStartsWithItsHeader) {
  const std::string dir = MakeTempDir("destination");
  std::optional<runtime::TargetSpec> spec = runtime::ParseTarget(dir);
  ASSERT_TRUE(spec.has_value());
  const std::string header = format::EncodeFileHeader(format::kFormatVersion, 0);
  runtime::Destination destination;
  bool too_many = false;
  ASSERT_TRUE(destination.Open(*spec, "sid", 0, &too_many, 1000, header).ok());
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"sid"});
  EXPECT_EQ(ReadFile(dir + "/sid"), header) << "the header is in place before any write";
  EXPECT_TRUE(destination.TakeHeaderInPlace());
  EXPECT_FALSE(destination.TakeHeaderInPlace()) << "once";
  EXPECT_TRUE(destination.Write("gen", 3));
  destination.Close();
  EXPECT_EQ(ReadFile(dir + "/sid"), header + "gen");
}

INSTANTIATE_TEST_SUITE_P(Creation, PublishedFileTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "TemporaryName" : "Tmpfile";
                         });

// ---- Killed processes ------------------------------------------------------------------------

std::string ProgramPath() {
  const char* srcdir = getenv("TEST_SRCDIR");
  const char* workspace = getenv("TEST_WORKSPACE");
  if (srcdir == nullptr || workspace == nullptr) return "tests/runtime/fault_program";
  return absl::StrCat(srcdir, "/", workspace, "/tests/runtime/fault_program");
}

double NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// Starts fault_program --forever traced into `dir` with `settings`, kills it with SIGKILL
// after `delay_us` microseconds (or, with delay_us < 0, once a file appears in `dir`) and
// reaps it. True if the kill ended it.
bool RunAndKill(const std::string& dir, const std::map<std::string, std::string>& settings,
                const std::vector<std::string>& args, int delay_us) {
  const std::string program = ProgramPath();
  std::map<std::string, std::string> env = ChildEnv(settings);
  env["TRACEWIRE"] = dir;
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [key, value] : env) {
      if (value.empty()) {
        unsetenv(key.c_str());
      } else {
        setenv(key.c_str(), value.c_str(), 1);
      }
    }
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> argv = {const_cast<char*>(program.c_str())};
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  if (delay_us >= 0) {
    const timespec delay = {delay_us / 1000000, static_cast<long>(delay_us % 1000000) * 1000};
    nanosleep(&delay, nullptr);
  } else {
    const double give_up = NowUs() + 30e6;
    while (ListDir(dir).empty() && NowUs() < give_up) {
      const timespec step = {0, 100 * 1000};
      nanosleep(&step, nullptr);
    }
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

// True if the directory's filesystem creates unnamed files (then no temporary name is ever
// left behind).
bool HasTmpfile(const std::string& dir) {
  const int fd = open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  close(fd);
  return true;
}

TEST(KilledProcessTest, LeavesNoEmptyOrHeaderlessTraceFile) {
  const std::string dir = MakeTempDir("killed");
  const unsigned seed = static_cast<unsigned>(time(nullptr));
  SCOPED_TRACE(absl::StrCat("random seed ", seed));
  std::mt19937 random(seed);
  // How long a traced start takes to create its file here (much longer under a sanitizer):
  // the kills spread over 0-5 ms, or twice that time if longer.
  int creation_times_us[3];
  for (int& creation_us : creation_times_us) {
    const std::string calibration = MakeTempDir("calibration");
    const double start = NowUs();
    RunAndKill(calibration, {}, {"--forever"}, /*delay_us=*/-1);
    creation_us = static_cast<int>(NowUs() - start);
  }
  std::sort(std::begin(creation_times_us), std::end(creation_times_us));
  const int creation_us = creation_times_us[1];  // the median
  SCOPED_TRACE(absl::StrCat("a file is created ", creation_us, " us after the start"));
  std::uniform_int_distribution<int> delay_us(0, std::max(5000, 2 * creation_us));
  constexpr int kRuns = 150;
  int killed = 0;
  for (int run = 0; run < kRuns; ++run) {
    // Half the runs only create the file before the kill (the first generation would be
    // cut after 1 s); the other half also write generations all the time.
    if (run % 2 == 0) {
      killed += RunAndKill(dir, {}, {"--forever"}, delay_us(random));
    } else {
      killed += RunAndKill(dir, {{"TRACEWIRE_GENERATION_MS", "1"}},
                           {"--forever", "--flush_every=20"}, delay_us(random));
    }
  }
  EXPECT_GT(killed, kRuns / 2) << "most runs must end by the kill";
  const std::string header = format::EncodeFileHeader(format::kFormatVersion, 0);
  int traces = 0;
  int temporary = 0;
  for (const std::string& name : ListDir(dir)) {
    const std::string bytes = ReadFile(dir + "/" + name);
    if (absl::StartsWith(name, ".tracewire-")) {
      ++temporary;  // a temporary name (filesystems without O_TMPFILE only)
      continue;
    }
    ++traces;
    ASSERT_GE(bytes.size(), header.size()) << name << " has no complete file header";
    EXPECT_EQ(bytes.substr(0, header.size()), header) << name;
    absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
    EXPECT_TRUE(trace.ok()) << name << ": " << trace.status();
  }
  EXPECT_GT(traces, 0) << "no run lived long enough to create its file";
  if (HasTmpfile(dir)) EXPECT_EQ(temporary, 0);
  printf("%d runs, %d killed, %d trace files, %d temporary names (file created after %d us)\n",
         kRuns, killed, traces, temporary, creation_us);
}

// A file target (TRACEWIRE=/some/file, opened for appending) that does not exist yet is
// created holding its header too: killed at any instant, a process leaves no file or one
// that starts with the file header. Half the runs trace into a file of their own (writing
// generations all the time in every other one of them), half into one file they share,
// created by whichever comes first.
TEST(KilledProcessTest, FileTargetIsNeverLeftEmpty) {
  const std::string dir = MakeTempDir("killed_file");
  const unsigned seed = static_cast<unsigned>(time(nullptr));
  SCOPED_TRACE(absl::StrCat("random seed ", seed));
  std::mt19937 random(seed);
  // How long a traced start takes to create its file here, measured as above (with a
  // directory target: creating the file costs the same); the kills spread over 0-5 ms, or
  // twice that time if longer (under a sanitizer on a loaded machine a start can take
  // hundreds of milliseconds: a shorter spread would kill every run before its file).
  int creation_times_us[3];
  for (int& creation_us : creation_times_us) {
    const std::string calibration = MakeTempDir("calibration");
    const double start = NowUs();
    RunAndKill(calibration, {}, {"--forever"}, /*delay_us=*/-1);
    creation_us = static_cast<int>(NowUs() - start);
  }
  std::sort(std::begin(creation_times_us), std::end(creation_times_us));
  const int creation_us = creation_times_us[1];
  SCOPED_TRACE(absl::StrCat("a file is created ", creation_us, " us after the start"));
  std::uniform_int_distribution<int> delay_us(0, std::max(5000, 2 * creation_us));
  constexpr int kRuns = 120;
  int killed = 0;
  for (int run = 0; run < kRuns; ++run) {
    if (run % 2 == 1) {
      killed += RunAndKill(dir + "/shared", {}, {"--forever"}, delay_us(random));
    } else if (run % 4 == 0) {
      killed += RunAndKill(absl::StrCat(dir, "/own-", run), {}, {"--forever"}, delay_us(random));
    } else {
      killed += RunAndKill(absl::StrCat(dir, "/own-", run), {{"TRACEWIRE_GENERATION_MS", "1"}},
                           {"--forever", "--flush_every=20"}, delay_us(random));
    }
  }
  EXPECT_GT(killed, kRuns / 2) << "most runs must end by the kill";
  const std::string header = format::EncodeFileHeader(format::kFormatVersion, 0);
  int own = 0;
  int temporary = 0;
  bool shared = false;
  for (const std::string& name : ListDir(dir)) {
    const std::string bytes = ReadFile(dir + "/" + name);
    if (absl::StartsWith(name, ".tracewire-")) {
      ++temporary;  // a temporary name (filesystems without O_TMPFILE only)
      continue;
    }
    if (name == "shared") {
      shared = true;
    } else {
      ++own;
    }
    ASSERT_GE(bytes.size(), header.size()) << name << " has no complete file header";
    EXPECT_EQ(bytes.substr(0, header.size()), header) << name;
    absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
    EXPECT_TRUE(trace.ok()) << name << ": " << trace.status();
  }
  EXPECT_GT(own, 0) << "no run lived long enough to create its file";
  EXPECT_TRUE(shared) << "no run lived long enough to create the shared file";
  if (HasTmpfile(dir)) EXPECT_EQ(temporary, 0);
  printf(
      "%d runs, %d killed, %d own files, shared file %s, %d temporary names (file created "
      "after %d us)\n",
      kRuns, killed, own, shared ? "present" : "absent", temporary, creation_us);
}

}  // namespace
}  // namespace tracewire::testing
