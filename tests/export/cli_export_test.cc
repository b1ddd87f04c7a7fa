// The issue-6 parts of the `tracewire` command, end to end: decode --format=chrome|otlp,
// decode --follow on a trace being written by another process, and listen.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

std::string Tracewire() { return Tool("tools/tracewire"); }

std::string DemoTrace() {
  const std::string path = TempDir("cli_demo") + "/trace.twr";
  EXPECT_EQ(RunTool({Tool("examples/demo/demo")}, {{"TRACEWIRE", path}}), 1);
  return path;
}

// Waits until `predicate` holds (at most 60 s: a bound on hangs only).
template <typename P>
bool WaitFor(P predicate) {
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (!predicate()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(5));
  }
  return true;
}

TEST(CliExportTest, DecodeChrome) {
  const std::string out = TempDir("cli_chrome") + "/trace.json";
  ASSERT_EQ(RunTool({Tracewire(), "decode", "--format=chrome", DemoTrace(), "-o", out}, {}), 0);
  const json doc = json::parse(ReadWholeFile(out), nullptr, false);
  ASSERT_TRUE(doc.is_object() && doc["traceEvents"].is_array());
  EXPECT_GT(doc["traceEvents"].size(), 50u);
}

TEST(CliExportTest, DecodeOtlp) {
  const std::string out = TempDir("cli_otlp") + "/trace.jsonl";
  ASSERT_EQ(RunTool({Tracewire(), "decode", "--format=otlp", DemoTrace(), "-o", out}, {}), 0);
  const std::vector<std::string> lines =
      absl::StrSplit(ReadWholeFile(out), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);  // the demo and its child
  for (const std::string& line : lines) {
    const json request = json::parse(line, nullptr, false);
    ASSERT_FALSE(request.is_discarded()) << line;
    EXPECT_TRUE(request["resourceSpans"][0]["scopeSpans"][0]["spans"].is_array());
  }
}

TEST(CliExportTest, UnknownFormatNamesTheExporters) {
  const std::string err = TempDir("cli_unknown") + "/err";
  // RunTool does not capture stderr: run through the shell for the message.
  ASSERT_EQ(RunTool({"/bin/sh", "-c",
                     absl::StrCat(Tracewire(), " decode --format=xml ", DemoTrace(), " 2>", err)},
                    {}),
            2);
  EXPECT_TRUE(absl::StrContains(ReadWholeFile(err), "chrome, otlp")) << ReadWholeFile(err);
}

// decode --follow while a writer runs; `format` chrome checks that the output closes.
void FollowWriter(const std::string& format) {
  const std::string dir = TempDir("cli_follow");
  const std::string trace = dir + "/trace.twr";
  const std::string stop_file = dir + "/stop";
  const std::string out = dir + "/out";
  const pid_t writer =
      Spawn({Tool("tests/testtool/testtool"), "trace2", "004child", "/bin/sh", "-c",
             absl::StrCat("i=0; while [ ! -e ", stop_file,
                          " ] && [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done")},
            {{"TRACEWIRE", trace}, {"TRACEWIRE_GENERATION_MS", "20"}});
  const pid_t follower = Spawn(
      {Tracewire(), "decode", "--follow", absl::StrCat("--format=", format), trace, "-o", out}, {});
  // The child_start reaches the output while the writer still waits for the stop file
  // (Chrome writes the child's slice when it ends; its start instant comes at once).
  const std::string child_start = format == "chrome" ? "\"name\":\"start\"" : "child_start";
  EXPECT_TRUE(WaitFor([&] { return absl::StrContains(ReadWholeFile(out), child_start); }))
      << ReadWholeFile(out);
  const int fd = open(stop_file.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  close(fd);
  EXPECT_EQ(Wait(writer), 0);
  EXPECT_TRUE(WaitFor([&] { return absl::StrContains(ReadWholeFile(out), "atexit"); }));
  kill(follower, SIGTERM);
  EXPECT_EQ(Wait(follower), 0);
  const std::string text = ReadWholeFile(out);
  if (format == "chrome") {
    const json doc = json::parse(text, nullptr, false);
    EXPECT_TRUE(doc.is_object() && doc["traceEvents"].is_array()) << text;
    EXPECT_TRUE(absl::StrContains(text, "\"name\":\"child sh\"")) << text;
  } else {
    for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      EXPECT_FALSE(json::parse(line.begin(), line.end(), nullptr, false).is_discarded()) << line;
    }
  }
}

TEST(CliExportTest, DecodeFollowEvent) { FollowWriter("event"); }

TEST(CliExportTest, DecodeFollowChrome) { FollowWriter("chrome"); }

TEST(CliExportTest, Listen) {
  const std::string socket = SocketPath("cli_listen");
  const std::string dir = TempDir("cli_listen");
  const pid_t listener =
      Spawn({Tracewire(), "listen", absl::StrCat("af_unix:", socket), "--out", dir}, {});
  ASSERT_TRUE(WaitFor([&] {
    struct stat st;
    return stat(socket.c_str(), &st) == 0;
  }));
  std::vector<pid_t> pids;
  for (int i = 0; i < 3; ++i) {
    pids.push_back(Spawn({Tool("tests/testtool/testtool"), "trace2", "001return", "0"},
                         {{"TRACEWIRE", absl::StrCat("af_unix:", socket)}}));
  }
  for (pid_t pid : pids) EXPECT_EQ(Wait(pid), 0);
  ASSERT_TRUE(WaitFor([&] { return FilesIn(dir).size() == 3; }));
  absl::SleepFor(absl::Milliseconds(50));
  kill(listener, SIGTERM);
  EXPECT_EQ(Wait(listener), 0);
  EXPECT_EQ(RunTool({Tracewire(), "validate", dir}, {}), 0);
  struct stat st;
  EXPECT_NE(stat(socket.c_str(), &st), 0) << "the socket file is removed";
}

TEST(CliExportTest, ListenUsageErrors) {
  EXPECT_EQ(RunTool({Tracewire(), "listen", "af_unix:/tmp/x.sock"}, {}), 2);  // no --out
  EXPECT_EQ(RunTool({Tracewire(), "listen", "tcp:1234", "--out", TempDir("cli_bad")}, {}), 2);
  EXPECT_EQ(RunTool({Tracewire(), "decode", "--follow", "-"}, {}), 2);
}

}  // namespace
}  // namespace tracewire::testing
