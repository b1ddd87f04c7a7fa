// TRACEWIRE destinations: files, fds, stderr, directories (suffixes, max files), Unix
// sockets, disabled and invalid values, and the inherited parent sid and command name.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/target.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"

namespace tracewire::testing {
namespace {

using runtime::Destination;
using runtime::TargetSpec;

// Names of the entries of `dir` other than "." and "..", sorted.
std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* entry = readdir(d)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

// A small traced workload: initialize, one region with a data_int inside.
int SmallWorkload() {
  tw_initialize();
  if (!tw_is_enabled()) return 10;
  tw_region_enter("test", "work", TW_NO_REPO);
  tw_data_intmax("test", TW_NO_REPO, "value", 7);
  tw_region_leave("test", "work", TW_NO_REPO);
  return 0;
}

// Decodes `bytes` and checks that the trace is whole and holds SmallWorkload's events.
void ExpectSmallWorkloadTrace(absl::string_view bytes) {
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  EXPECT_EQ(trace->complete_bytes, trace->total_bytes);
  ASSERT_GE(trace->generations.size(), 1u);
  EXPECT_EQ(trace->Events("version").size(), 1u);
  const std::vector<DecodedEvent> ints = trace->Events("data_int");
  ASSERT_EQ(ints.size(), 1u);
  EXPECT_EQ(ints[0].Arg("value"), 14u);  // zigzag(7)
  EXPECT_EQ(trace->Events("atexit").size(), 1u);
}

// ---- File targets --------------------------------------------------------------------

TEST(TargetsTest, FileTargetTwoProcessesAppend) {
  const std::string dir = MakeTempDir("file");
  const std::string path = dir + "/trace.tw";
  for (int i = 0; i < 2; ++i) {
    const int status = RunInChild(ChildEnv({{"TRACEWIRE", path}}), SmallWorkload);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  EXPECT_EQ(ListDir(dir), std::vector<std::string>{"trace.tw"});
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  EXPECT_EQ(trace->complete_bytes, trace->total_bytes);
  std::set<std::string> sids;
  std::set<uint64_t> pids;
  for (const DecodedGeneration& gen : trace->generations) {
    sids.insert(gen.sid);
    pids.insert(gen.pid);
  }
  EXPECT_EQ(sids.size(), 2u);
  EXPECT_EQ(pids.size(), 2u);
  EXPECT_EQ(trace->Events("version").size(), 2u);
  EXPECT_EQ(trace->Events("data_int").size(), 2u);
  EXPECT_EQ(trace->Events("atexit").size(), 2u);
}

TEST(TargetsTest, FdTarget) {
  const std::string dir = MakeTempDir("fd");
  const std::string path = dir + "/fd5.tw";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", "5"}}), [fd] {
    if (dup2(fd, 5) != 5) return 20;
    return SmallWorkload();
  });
  close(fd);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ExpectSmallWorkloadTrace(ReadFile(path));
}

TEST(TargetsTest, FdTargetNotOpenStaysDisabled) {
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", "8"}}), [] {
    close(8);
    tw_initialize();
    return tw_is_enabled() ? 1 : 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

class StderrTargetTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StderrTargetTest, WritesToStderr) {
  const std::string dir = MakeTempDir("stderr");
  const std::string path = dir + "/stderr.tw";
  const int status = RunInChild(ChildEnv({{"TRACEWIRE", GetParam()}}), [&path] {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 2) != 2) return 20;
    close(fd);
    return SmallWorkload();
  });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ExpectSmallWorkloadTrace(ReadFile(path));
}

INSTANTIATE_TEST_SUITE_P(Values, StderrTargetTest, ::testing::Values("1", "true", "TRUE"));

// ---- Directory targets ------------------------------------------------------------------

TEST(TargetsTest, DirectoryFileNamedAfterLastSidComponent) {
  const std::string dir = MakeTempDir("dir");
  const int status = RunInChild(
      ChildEnv({{"TRACEWIRE", dir}, {"TRACEWIRE_PARENT_SID", "outer-sid"}}), SmallWorkload);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string file = OnlyFileIn(dir);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(file);
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_FALSE(trace->generations.empty());
  const std::string sid = trace->generations[0].sid;
  ASSERT_EQ(sid.rfind("outer-sid/", 0), 0u) << sid;
  EXPECT_EQ(file, dir + "/" + sid.substr(sid.rfind('/') + 1));
}

TEST(TargetsTest, DirectoryNameClashGetsNumericSuffix) {
  const std::string dir = MakeTempDir("clash");
  const std::string name = "20260101T000000.000000Z-H01234567-P00000001";
  WriteFile(dir + "/" + name, "taken");
  std::optional<TargetSpec> spec = runtime::ParseTarget(dir);
  ASSERT_TRUE(spec.has_value());
  ASSERT_EQ(spec->kind, TargetSpec::Kind::kDirectory);
  {
    Destination dest;
    bool too_many = true;
    ASSERT_TRUE(dest.Open(*spec, name, 0, &too_many).ok());
    EXPECT_FALSE(too_many);
    EXPECT_EQ(dest.path(), dir + "/" + name + ".1");
    EXPECT_TRUE(dest.Write("abc", 3));
  }
  EXPECT_EQ(ReadFile(dir + "/" + name), "taken");  // never overwritten
  EXPECT_EQ(ReadFile(dir + "/" + name + ".1"), "abc");
  {
    Destination dest;
    bool too_many = false;
    ASSERT_TRUE(dest.Open(*spec, name, 0, &too_many).ok());
    EXPECT_EQ(dest.path(), dir + "/" + name + ".2");
  }
  // With the name and .1 ... .9 all taken (10 attempts in all), opening fails.
  for (int i = 3; i <= 9; ++i) WriteFile(absl::StrCat(dir, "/", name, ".", i), "");
  Destination dest;
  bool too_many = false;
  EXPECT_FALSE(dest.Open(*spec, name, 0, &too_many).ok());
  EXPECT_FALSE(dest.ok());
  EXPECT_EQ(ListDir(dir).size(), 10u);
}

TEST(TargetsTest, MaxFilesWritesSentinelThenStaysDisabled) {
  const std::string dir = MakeTempDir("maxfiles");
  WriteFile(dir + "/existing", "x");
  // One file plus "." and ".." is 3 entries: the limit of 3 is reached.
  const auto env = ChildEnv({{"TRACEWIRE", dir}, {"TRACEWIRE_MAX_FILES", "3"}});
  int status = RunInChild(env, SmallWorkload);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"existing", "tracewire-discard"}));
  const std::string sentinel = dir + "/tracewire-discard";
  const std::string bytes = ReadFile(sentinel);
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  std::vector<DecodedEvent> main_events;
  for (const DecodedEvent& e : trace->AllEvents()) {
    if (e.thread == 0) main_events.push_back(e);
  }
  ASSERT_GE(main_events.size(), 3u);
  EXPECT_EQ(main_events[0].name, "thread_status");
  EXPECT_EQ(main_events[1].name, "version");
  EXPECT_EQ(main_events[2].name, "too_many_files");
  // too_many_files reuses the version call's file and line.
  EXPECT_EQ(main_events[2].site.file, main_events[1].site.file);
  EXPECT_EQ(main_events[2].site.line, main_events[1].site.line);
  EXPECT_EQ(trace->Events("too_many_files").size(), 1u);

  // With the sentinel present the next process traces nothing.
  status = RunInChild(env, [] {
    tw_initialize();
    tw_region_enter("test", "work", TW_NO_REPO);
    tw_region_leave("test", "work", TW_NO_REPO);
    return tw_is_enabled() ? 1 : 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "tracing enabled despite the sentinel";
  EXPECT_EQ(ListDir(dir), (std::vector<std::string>{"existing", "tracewire-discard"}));
  EXPECT_EQ(ReadFile(sentinel), bytes);
}

TEST(TargetsTest, MaxFilesBelowLimitWritesNormally) {
  const std::string dir = MakeTempDir("maxfiles4");
  WriteFile(dir + "/existing", "x");
  const int status =
      RunInChild(ChildEnv({{"TRACEWIRE", dir}, {"TRACEWIRE_MAX_FILES", "4"}}), SmallWorkload);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::vector<std::string> names = ListDir(dir);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(std::count(names.begin(), names.end(), "tracewire-discard"), 0);
  const std::string file = names[0] == "existing" ? names[1] : names[0];
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(dir + "/" + file);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->Events("too_many_files").empty());
  EXPECT_EQ(trace->Events("data_int").size(), 1u);
}

// ---- Unix sockets -----------------------------------------------------------------------

// A socket path under TEST_TMPDIR, or /tmp when that would not fit in sun_path.
std::string SocketPath(const std::string& name) {
  const std::string dir = MakeTempDir("sock");
  std::string path = dir + "/" + name;
  if (path.size() >= sizeof(sockaddr_un::sun_path)) {
    path = absl::StrCat("/tmp/tw-", getpid(), "-", name);
  }
  unlink(path.c_str());
  return path;
}

// Creates, binds (and for streams, listens on) a Unix socket at `path`.
int BindUnix(const std::string& path, int type) {
  const int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (type == SOCK_STREAM && listen(fd, 4) != 0)) {
    close(fd);
    return -1;
  }
  return fd;
}

// Accepts one connection on `listener` and reads it to EOF (gives up after 60 s of silence,
// which only bounds a hang).
std::string ReadStreamToEof(int listener) {
  std::string bytes;
  pollfd pfd{listener, POLLIN, 0};
  if (poll(&pfd, 1, 60000) != 1) return bytes;
  const int conn = accept(listener, nullptr, nullptr);
  if (conn < 0) return bytes;
  char buffer[65536];
  for (;;) {
    pollfd cfd{conn, POLLIN, 0};
    if (poll(&cfd, 1, 60000) != 1) break;
    const ssize_t n = read(conn, buffer, sizeof(buffer));
    if (n <= 0) break;
    bytes.append(buffer, n);
  }
  close(conn);
  return bytes;
}

// Receives datagrams on `fd` until `done` is set and no datagram is left; concatenates them.
std::string ReadDatagrams(int fd, const std::atomic<bool>& done, int* count) {
  std::string bytes;
  std::vector<char> buffer(256 * 1024);
  *count = 0;
  for (;;) {
    const bool finished = done.load();
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, 50) == 1) {
      const ssize_t n = recv(fd, buffer.data(), buffer.size(), 0);
      if (n > 0) {
        bytes.append(buffer.data(), n);
        ++*count;
      }
      continue;
    }
    if (finished) break;  // the child had exited before this empty poll: drained
  }
  return bytes;
}

// A workload that fills a few frames (many strings) so a datagram trace has several.
int SocketWorkload() {
  tw_initialize();
  if (!tw_is_enabled()) return 10;
  for (int i = 0; i < 50; ++i) {
    tw_region_enter("test", "sock", TW_NO_REPO);
    tw_data_string("test", TW_NO_REPO, "key", std::string(100, 'a' + i % 26).c_str());
    tw_region_leave("test", "sock", TW_NO_REPO);
  }
  tw_flush();  // a second generation
  tw_data_intmax("test", TW_NO_REPO, "value", 7);
  return 0;
}

void ExpectSocketWorkloadTrace(absl::string_view bytes) {
  absl::StatusOr<DecodedTrace> trace = DecodeTrace(bytes);
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_TRUE(trace->tail_status.ok()) << trace->tail_status;
  EXPECT_EQ(trace->complete_bytes, trace->total_bytes);
  EXPECT_GE(trace->generations.size(), 2u);
  const std::vector<DecodedEvent> data = trace->Events("data");
  ASSERT_EQ(data.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(data[i].Str("value_string"), std::string(100, 'a' + i % 26));
  }
  EXPECT_EQ(trace->Events("data_int").size(), 1u);
  EXPECT_EQ(trace->Events("atexit").size(), 1u);
}

class StreamSocketTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamSocketTest, StreamReceivesWholeTrace) {
  const std::string path = SocketPath("s.sock");
  const int listener = BindUnix(path, SOCK_STREAM);
  ASSERT_GE(listener, 0) << strerror(errno);
  std::string bytes;
  // The reader thread below may be starved for a while on a loaded machine: the runtime
  // waits for it rather than dropping a generation at the default 1 s bound.
  const int pid = StartInChild(
      ChildEnv({{"TRACEWIRE", GetParam() + path}, {"TRACEWIRE_WRITE_TIMEOUT_MS", "60000"}}),
      SocketWorkload);
  std::thread reader([&] { bytes = ReadStreamToEof(listener); });
  const int status = WaitForChild(pid);
  reader.join();
  close(listener);
  unlink(path.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ExpectSocketWorkloadTrace(bytes);
}

INSTANTIATE_TEST_SUITE_P(Prefixes, StreamSocketTest,
                         ::testing::Values("af_unix:stream:", "af_unix:"));

class DgramSocketTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DgramSocketTest, DatagramsConcatenateToWholeTrace) {
  const std::string path = SocketPath("d.sock");
  const int fd = BindUnix(path, SOCK_DGRAM);
  ASSERT_GE(fd, 0) << strerror(errno);
  std::atomic<bool> done{false};
  std::string bytes;
  int datagrams = 0;
  // The reader thread below may be starved for a while on a loaded machine: the runtime
  // waits for it rather than dropping a generation at the default 1 s bound.
  const int pid = StartInChild(
      ChildEnv({{"TRACEWIRE", GetParam() + path}, {"TRACEWIRE_WRITE_TIMEOUT_MS", "60000"}}),
      SocketWorkload);
  std::thread reader([&] { bytes = ReadDatagrams(fd, done, &datagrams); });
  const int status = WaitForChild(pid);
  done = true;
  reader.join();
  close(fd);
  unlink(path.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // At least a header and a few frames per generation, two generations.
  EXPECT_GE(datagrams, 8);
  ExpectSocketWorkloadTrace(bytes);
}

// Plain "af_unix:" tries a stream first and falls back to a datagram socket.
INSTANTIATE_TEST_SUITE_P(Prefixes, DgramSocketTest,
                         ::testing::Values("af_unix:dgram:", "af_unix:"));

TEST(TargetsTest, MissingSocketStaysDisabledSilently) {
  const std::string dir = MakeTempDir("nosock");
  const std::string err = dir + "/stderr.txt";
  const int status =
      RunInChild(ChildEnv({{"TRACEWIRE", "af_unix:" + SocketPath("none.sock")}}), [&err] {
        const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) != 2) return 20;
        tw_initialize();
        return tw_is_enabled() ? 1 : 0;
      });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(ReadFile(err), "");  // silent without TRACEWIRE_DST_DEBUG
}

// ---- Disabled and invalid values ------------------------------------------------------

// Runs `value` as TRACEWIRE (set with setenv, so "" is really set and empty) in a child
// whose working directory is an empty directory and whose stderr goes to a file. Returns
// the child's stderr; *files lists what appeared in the directory.
std::string RunWithTargetValue(const std::string& value, int* enabled,
                               std::vector<std::string>* files) {
  const std::string dir = MakeTempDir("value");
  const std::string cwd = dir + "/cwd";
  mkdir(cwd.c_str(), 0755);
  const std::string err = dir + "/stderr.txt";
  const int status = RunInChild(ChildEnv({}), [&] {
    const int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 2) != 2 || chdir(cwd.c_str()) != 0) return 20;
    setenv("TRACEWIRE", value.c_str(), 1);
    tw_initialize();
    tw_initialize();  // a second call must not warn again
    tw_region_enter("test", "work", TW_NO_REPO);
    tw_region_leave("test", "work", TW_NO_REPO);
    tw_flush();
    const int on = tw_is_enabled();
    // Nothing is exported while disabled.
    const int exported = getenv("TRACEWIRE_PARENT_SID") != nullptr ? 2 : 0;
    return on | exported;
  });
  EXPECT_TRUE(WIFEXITED(status)) << status;
  *enabled = WEXITSTATUS(status);
  *files = ListDir(cwd);
  return ReadFile(err);
}

class DisabledValueTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DisabledValueTest, DisabledAndSilent) {
  int enabled = -1;
  std::vector<std::string> files;
  EXPECT_EQ(RunWithTargetValue(GetParam(), &enabled, &files), "");
  EXPECT_EQ(enabled, 0);
  EXPECT_TRUE(files.empty());
}

INSTANTIATE_TEST_SUITE_P(Values, DisabledValueTest,
                         ::testing::Values("", "0", "false", "FALSE", "False"));

class InvalidValueTest : public ::testing::TestWithParam<std::string> {};

TEST_P(InvalidValueTest, WarnsOnceAndStaysDisabled) {
  int enabled = -1;
  std::vector<std::string> files;
  EXPECT_EQ(RunWithTargetValue(GetParam(), &enabled, &files),
            "warning: tracewire: unknown value for 'TRACEWIRE': '" + GetParam() + "'\n");
  EXPECT_EQ(enabled, 0);
  EXPECT_TRUE(files.empty());  // a relative path is not created either
}

INSTANTIATE_TEST_SUITE_P(Values, InvalidValueTest,
                         ::testing::Values("yes", "10", "relative/path", "af_unix:rel"));

// ---- Parent sid and command name -------------------------------------------------------

TEST(TargetsTest, ParentSidIsInheritedAndExported) {
  const std::string dir = MakeTempDir("psid");
  const std::string trace_dir = dir + "/trace";
  mkdir(trace_dir.c_str(), 0755);
  const std::string exported = dir + "/exported.txt";
  const int status = RunInChild(
      ChildEnv({{"TRACEWIRE", trace_dir}, {"TRACEWIRE_PARENT_SID", "a/b"}}), [&exported] {
        tw_initialize();
        const char* sid = getenv("TRACEWIRE_PARENT_SID");
        WriteFile(exported, sid == nullptr ? "(unset)" : sid);
        return tw_is_enabled() ? 0 : 1;
      });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string file = OnlyFileIn(trace_dir);
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(file);
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_FALSE(trace->generations.empty());
  const std::string sid = trace->generations[0].sid;
  EXPECT_EQ(sid.rfind("a/b/", 0), 0u) << sid;
  EXPECT_EQ(std::count(sid.begin(), sid.end(), '/'), 2);
  EXPECT_EQ(ReadFile(exported), sid);  // children of this process inherit the full sid
  EXPECT_EQ(file, trace_dir + "/" + sid.substr(4));
  for (const DecodedGeneration& gen : trace->generations) EXPECT_EQ(gen.sid, sid);
}

TEST(TargetsTest, ParentNameBuildsHierarchyAndIsExported) {
  const std::string dir = MakeTempDir("pname");
  const std::string trace_dir = dir + "/trace";
  mkdir(trace_dir.c_str(), 0755);
  const std::string exported = dir + "/exported.txt";
  const int status =
      RunInChild(ChildEnv({{"TRACEWIRE", trace_dir}, {"TRACEWIRE_PARENT_NAME", "x"}}), [&exported] {
        tw_initialize();
        tw_cmd_name("y");
        const char* name = getenv("TRACEWIRE_PARENT_NAME");
        WriteFile(exported, name == nullptr ? "(unset)" : name);
        return 0;
      });
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(trace_dir));
  ASSERT_TRUE(trace.ok()) << trace.status();
  const std::vector<DecodedEvent> names = trace->Events("cmd_name");
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].Str("name_string"), "y");
  EXPECT_EQ(names[0].Str("hierarchy_string"), "x/y");
  ASSERT_FALSE(trace->generations.empty());
  EXPECT_EQ(trace->generations.back().cmd_name, "y");
  EXPECT_EQ(ReadFile(exported), "x/y");
}

}  // namespace
}  // namespace tracewire::testing
