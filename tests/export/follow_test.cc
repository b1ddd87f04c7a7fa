// Following a growing trace (reader/follow.h): the events of a writer in another process
// arrive while it runs; a file written in small pieces reads the same as the finished
// file; the end conditions (stop, idle timeout) and the errors (shrinking file, stdin).
#include "reader/follow.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "reader/event.h"
#include "reader/reader.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

using reader::Event;
using reader::EventKind;

// The Trace2 events of a complete read of `path`, as debug strings.
std::vector<std::string> ReadAll(const std::string& path) {
  std::vector<std::string> events;
  absl::StatusOr<std::unique_ptr<reader::Reader>> r = reader::Reader::OpenFile(path);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return events;
  while (true) {
    absl::StatusOr<const Event*> event = (*r)->Next();
    EXPECT_TRUE(event.ok()) << event.status();
    if (!event.ok() || *event == nullptr) break;
    events.push_back((*event)->DebugString());
  }
  return events;
}

TEST(FollowTest, SeesTheEventsOfAWriterWhileItRuns) {
  const std::string dir = TempDir("follow_writer");
  const std::string trace = dir + "/trace.twr";
  const std::string stop_file = dir + "/stop";
  // The writer: testtool runs a child that waits for the stop file (at most 6000 rounds of
  // 10 ms, a bound on hangs only); its child_start is written within a generation period
  // (20 ms) of an idle machine, long before it exits.
  const pid_t writer =
      Spawn({Tool("tests/testtool/testtool"), "trace2", "004child", "/bin/sh", "-c",
             absl::StrCat("i=0; while [ ! -e ", stop_file,
                          " ] && [ $i -lt 6000 ]; do sleep 0.01; i=$((i+1)); done")},
            {{"TRACEWIRE", trace}, {"TRACEWIRE_GENERATION_MS", "20"}});
  ASSERT_GT(writer, 0);

  int writer_status = -1;
  bool writer_done = false;
  const absl::Time deadline = absl::Now() + absl::Seconds(120);  // a bound on hangs only
  reader::FollowOptions options;
  options.poll_interval = absl::Milliseconds(5);
  options.stop = [&] {
    if (!writer_done && waitpid(writer, &writer_status, WNOHANG) == writer) writer_done = true;
    return writer_done || absl::Now() > deadline;
  };
  absl::StatusOr<std::unique_ptr<reader::Reader>> follower =
      reader::OpenFollowReader(trace, options);
  ASSERT_TRUE(follower.ok()) << follower.status();

  bool saw_child_start_while_running = false;
  std::vector<EventKind> kinds;
  while (true) {
    absl::StatusOr<const Event*> event = (*follower)->Next();
    ASSERT_TRUE(event.ok()) << event.status();
    if (*event == nullptr) break;
    kinds.push_back((*event)->kind);
    if ((*event)->kind == EventKind::kChildStart) {
      // The writer is still running: its child waits for the stop file, created only now.
      saw_child_start_while_running = !writer_done && waitpid(writer, nullptr, WNOHANG) == 0;
      const int fd = open(stop_file.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
      ASSERT_GE(fd, 0);
      close(fd);
    }
  }
  if (!writer_done) writer_status = Wait(writer) << 8;
  EXPECT_TRUE(saw_child_start_while_running);
  EXPECT_TRUE(WIFEXITED(writer_status) && WEXITSTATUS(writer_status) == 0) << writer_status;
  ASSERT_FALSE(kinds.empty());
  EXPECT_EQ(kinds.front(), EventKind::kVersion);
  EXPECT_EQ(kinds.back(), EventKind::kAtexit);
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), EventKind::kChildExit), kinds.end());
  // The follower saw exactly what a reader of the finished file sees.
  EXPECT_EQ(kinds.size(), ReadAll(trace).size());
}

TEST(FollowTest, AFileWrittenInSmallPiecesReadsLikeTheFinishedFile) {
  const std::string dir = TempDir("follow_pieces");
  const std::string source = dir + "/source.twr";
  ASSERT_EQ(
      RunTool({Tool("examples/demo/demo")}, {{"TRACEWIRE", source}, {"TRACEWIRE_GENERATION_MS", "1"}}), 1);
  const std::string bytes = ReadWholeFile(source);
  const std::vector<std::string> expected = ReadAll(source);
  ASSERT_FALSE(expected.empty());

  const std::string growing = dir + "/growing.twr";  // created by the writer thread
  std::atomic<bool> written{false};
  std::atomic<int> waits{0};
  // Waits until the follower has waited at the end of what the file holds (or for the file)
  // once more than `seen` times: it has caught up with the writer. The deadline bounds hangs
  // only; the follower waits again every poll interval.
  const auto caught_up = [&waits](int seen) {
    const absl::Time limit = absl::Now() + absl::Seconds(60);
    while (waits.load() <= seen && absl::Now() < limit) absl::SleepFor(absl::Milliseconds(1));
    return waits.load();
  };
  std::thread appender([&] {
    int seen = caught_up(0);  // the follower starts before the file exists
    const int fd = open(growing.c_str(), O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
    for (size_t pos = 0; pos < bytes.size(); pos += 997) {
      const size_t n = std::min<size_t>(997, bytes.size() - pos);
      EXPECT_EQ(write(fd, bytes.data() + pos, n), static_cast<ssize_t>(n));
      // Every 8 pieces the follower reads up to the end of the file before the next ones.
      if ((pos / 997) % 8 == 0) seen = caught_up(seen);
    }
    close(fd);
    written = true;
  });
  reader::FollowOptions options;
  options.poll_interval = absl::Milliseconds(1);
  const absl::Time deadline = absl::Now() + absl::Seconds(120);  // a bound on hangs only
  options.stop = [&] { return written.load() || absl::Now() > deadline; };
  options.on_wait = [&] { waits.fetch_add(1); };
  absl::StatusOr<std::unique_ptr<reader::Reader>> follower =
      reader::OpenFollowReader(growing, options);
  ASSERT_TRUE(follower.ok());
  std::vector<std::string> events;
  while (true) {
    absl::StatusOr<const Event*> event = (*follower)->Next();
    ASSERT_TRUE(event.ok()) << event.status();
    if (*event == nullptr) break;
    events.push_back((*event)->DebugString());
  }
  appender.join();
  EXPECT_EQ(events, expected);
  EXPECT_GT(waits.load(), 0);
}

TEST(FollowTest, IdleTimeoutEndsTheInput) {
  const std::string trace = TempDir("follow_idle") + "/trace.twr";
  ASSERT_EQ(RunTool({Tool("tests/testtool/testtool"), "trace2", "001return", "0"}, {{"TRACEWIRE", trace}}),
            0);
  reader::FollowOptions options;
  options.poll_interval = absl::Milliseconds(5);
  options.idle_timeout = absl::Milliseconds(100);
  absl::StatusOr<std::unique_ptr<reader::Reader>> follower =
      reader::OpenFollowReader(trace, options);
  ASSERT_TRUE(follower.ok());
  const absl::Time start = absl::Now();
  size_t events = 0;
  while (true) {
    absl::StatusOr<const Event*> event = (*follower)->Next();
    ASSERT_TRUE(event.ok()) << event.status();
    if (*event == nullptr) break;
    ++events;
  }
  EXPECT_EQ(events, ReadAll(trace).size());
  EXPECT_LT(absl::Now() - start, absl::Seconds(60));  // a bound on hangs only
}

TEST(FollowTest, StopsInsideAGenerationWithOutOfRange) {
  const std::string dir = TempDir("follow_cut");
  const std::string source = dir + "/source.twr";
  ASSERT_EQ(RunTool({Tool("tests/testtool/testtool"), "trace2", "001return", "0"}, {{"TRACEWIRE", source}}),
            0);
  const std::string bytes = ReadWholeFile(source);
  const std::string cut = dir + "/cut.twr";
  const int fd = open(cut.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_EQ(write(fd, bytes.data(), bytes.size() - 5), static_cast<ssize_t>(bytes.size() - 5));
  close(fd);
  reader::FollowOptions options;
  options.stop = [] { return true; };
  absl::StatusOr<std::unique_ptr<reader::Reader>> follower = reader::OpenFollowReader(cut, options);
  ASSERT_TRUE(follower.ok());
  absl::Status status;
  while (true) {
    absl::StatusOr<const Event*> event = (*follower)->Next();
    if (!event.ok()) {
      status = event.status();
      break;
    }
    if (*event == nullptr) break;
  }
  EXPECT_TRUE(absl::IsOutOfRange(status)) << status;
}

TEST(FollowTest, AShrinkingFileIsDataLoss) {
  const std::string path = TempDir("follow_shrink") + "/file";
  int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  ASSERT_EQ(write(fd, "0123456789", 10), 10);
  close(fd);
  reader::FollowOptions options;
  options.poll_interval = absl::Milliseconds(1);
  bool truncated = false;
  options.on_wait = [&] {
    if (!truncated) truncated = truncate(path.c_str(), 4) == 0;
  };
  const absl::Time deadline = absl::Now() + absl::Seconds(60);  // a bound on hangs only
  options.stop = [&] { return absl::Now() > deadline; };
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> source =
      reader::FollowFileSource(path, options);
  ASSERT_TRUE(source.ok());
  char buffer[64];
  absl::StatusOr<size_t> n = (*source)->Read(buffer, sizeof(buffer));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 10u);
  n = (*source)->Read(buffer, sizeof(buffer));
  EXPECT_TRUE(absl::IsDataLoss(n.status())) << n.status();
}

TEST(FollowTest, StandardInputCannotBeFollowed) {
  EXPECT_TRUE(absl::IsInvalidArgument(reader::FollowFileSource("-").status()));
  reader::FollowOptions options;
  options.wait_for_file = false;
  EXPECT_TRUE(absl::IsNotFound(
      reader::FollowFileSource(TempDir("follow_missing") + "/nothing", options).status()));
}

}  // namespace
}  // namespace tracewire::testing
