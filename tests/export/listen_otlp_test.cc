// `tracewire listen --otlp-endpoint`: each process is forwarded over OTLP/HTTP as soon as it
// completes (the runtime's stream and git's EVENT lines alike), through a bounded queue: a
// slow receiver makes the listener drop (count and log) what does not fit instead of
// growing, and a receiver that is down makes it report what was not delivered and exit 3
// within its time limits. The receiver is tests/consumers/otlp_receiver.mjs on 127.0.0.1.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/export/collector_support.h"
#include "tests/export/export_support.h"
#include "tests/export/otlp_support.h"

namespace tracewire::testing {
namespace {

constexpr int kExitNotDelivered = 3;
constexpr char kSid[] = "20261122T020000.100000Z-H0a7c9cdf-P00003000";

// One process of the testtool, traced into the listener.
int RunTraced(const Listener& l, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Tool("tests/testtool/testtool"), "trace2"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunTool(argv, {{"TRACEWIRE", "af_unix:" + l.socket}});
}

// git's EVENT lines of one process, sent like git does over a stream socket.
void SendGitProcess(const Listener& l, const std::string& sid) {
  const int fd = ConnectStream(l.socket);
  SendAll(fd, SyntheticGitEventStream(sid, 3));
  close(fd);
}

TEST(ListenOtlpTest, ForwardsEachProcessAsSoonAsItCompletes) {
  OtlpReceiver receiver;
  const Listener l = StartListener(
      "listen_otlp", "stream",
      {"--otlp-endpoint=" + receiver.endpoint(), "--otlp-header=Authorization=Bearer t0ken"});
  // The demo (a process and its child), a failing testtool, and a git process.
  EXPECT_EQ(RunTool({Tool("examples/demo/demo")}, {{"TRACEWIRE", "af_unix:" + l.socket}}), 1);
  EXPECT_EQ(RunTraced(l, {"002exit", "7"}), 7);
  SendGitProcess(l, kSid);
  // Forwarded while the listener runs on.
  EXPECT_TRUE(receiver.WaitForRequests(4, absl::Seconds(60)));
  EXPECT_EQ(StopListener(l), 0);
  const std::string log = cli_test::ReadFile(l.log);
  EXPECT_EQ(Counted(log, "processes forwarded"), 4u) << log;
  const std::vector<nlohmann::json> requests = receiver.Requests();
  ASSERT_EQ(requests.size(), 4u);
  for (const nlohmann::json& r : requests) {
    EXPECT_EQ(r["url"], "/v1/traces");
    EXPECT_EQ(r["headers"]["authorization"], "Bearer t0ken");
  }
  const SchemaCheck check = CheckOtlpSchema({receiver.bodies_path()});
  EXPECT_TRUE(check.passed) << check.output;
  // The failing process arrives as an ERROR span.
  bool failed_process = false;
  for (const OtlpSpan& s : OtlpSpans(ReadWholeFile(receiver.bodies_path()))) {
    if (s.span.value("name", "") == "testtool:trace2") {
      failed_process = true;
      EXPECT_EQ(s.span["status"]["code"], 2);
      EXPECT_EQ(s.span["status"]["message"], "exit code 7");
    }
  }
  EXPECT_TRUE(failed_process);
}

TEST(ListenOtlpTest, SlowReceiverFillsTheQueueAndDropsAreCounted) {
  // The receiver holds its first answer until released: meanwhile one process is in
  // flight, two wait in the queue, and the others find it full.
  OtlpReceiver receiver("hold");
  const Listener l = StartListener(
      "listen_otlp_slow", "stream",
      {"--otlp-endpoint=" + receiver.endpoint(), "--otlp-queue=2", "--otlp-retry-time=30s"});
  std::vector<pid_t> pids;
  for (int i = 0; i < 8; ++i) {
    pids.push_back(Spawn({Tool("tests/testtool/testtool"), "trace2", "001return", "0"},
                         {{"TRACEWIRE", "af_unix:" + l.socket}}));
  }
  for (pid_t pid : pids) EXPECT_EQ(Wait(pid), 0);
  EXPECT_TRUE(receiver.WaitForRequests(1, absl::Seconds(60)));
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (FilesIn(l.out_dir).size() < 8 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  // The queue is full and has dropped a process (logged at the first drop); how many more
  // completions reach it before the release is the scheduler's choice.
  while (!absl::StrContains(cli_test::ReadFile(l.log), "OTLP queue full") &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  receiver.Release();
  ASSERT_EQ(StopListener(l), kExitNotDelivered);
  const std::string log = cli_test::ReadFile(l.log);
  const uint64_t forwarded = Counted(log, "processes forwarded");
  const uint64_t dropped = Counted(log, "dropped from the full queue");
  EXPECT_GE(dropped, 1u) << log;  // 5 when every completion came before the release
  EXPECT_EQ(forwarded + dropped, 8u) << log;  // the queue drained at the stop
  EXPECT_EQ(receiver.Requests().size(), forwarded);
  EXPECT_TRUE(absl::StrContains(log, "OTLP queue full (2 processes waiting")) << log;
  // Every trace is still in its file.
  EXPECT_EQ(FilesIn(l.out_dir).size(), 8u);
}

TEST(ListenOtlpTest, ReceiverDownIsReportedAtTheStop) {
  // Nothing listens there: the receiver started and stopped again.
  std::string endpoint;
  {
    OtlpReceiver gone;
    endpoint = gone.endpoint();
  }
  const Listener l = StartListener("listen_otlp_down", "dgram",
                                   {"--otlp-endpoint=" + endpoint, "--otlp-retry-time=2s"});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(RunTraced(l, {"001return", "0"}), 0);
  const absl::Time written = absl::Now() + absl::Seconds(60);
  while (FilesIn(l.out_dir).size() < 3 && absl::Now() < written) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  const absl::Time start = absl::Now();
  EXPECT_EQ(StopListener(l), kExitNotDelivered);
  EXPECT_LT(absl::Now() - start, absl::Seconds(60));  // a bound against hangs only
  const std::string log = cli_test::ReadFile(l.log);
  EXPECT_EQ(Counted(log, "processes forwarded"), 0u) << log;
  EXPECT_TRUE(absl::StrContains(log, "not delivered: 3 processes")) << log;
  EXPECT_TRUE(absl::StrContains(log, "Couldn't connect")) << log;
}

}  // namespace
}  // namespace tracewire::testing
