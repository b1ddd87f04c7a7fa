// DirectoryFollower (behind `tracewire run`) on directories of real per-process traces: the
// events of several processes in time order, threads that end with their process, files
// that appear while it runs, and a damaged file.
#include "tools/cli/directory_follower.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::tools {
namespace {

using cli_test::Runfile;

// Records testtool -> testtool into `dir` (one file per process).
void RecordTree(const std::string& dir) {
  cli_test::RunOptions options;
  options.env = {{"TRACEWIRE", dir}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  const std::string testtool = Runfile("tests/testtool/testtool");
  ASSERT_EQ(cli_test::RunCommand(
                {testtool, "trace2", "004child", testtool, "trace2", "001return", "0"}, options)
                .exit_code,
            0);
}

DirectoryFollowerOptions Options(const std::string& dir) {
  DirectoryFollowerOptions options;
  options.dir = dir;
  options.format = "perf";
  options.formatter.brief = true;
  options.poll_interval = absl::Milliseconds(5);
  return options;
}

TEST(DirectoryFollowerTest, ProcessesInTimeOrderAndThreadsEndWithTheirProcess) {
  const std::string dir = cli_test::NewTempDir("follow_tree");
  RecordTree(dir);
  std::string out;
  DirectoryFollower follower(
      Options(dir), [&out](absl::string_view text) { out.append(text.data(), text.size()); });
  follower.Scan();
  EXPECT_EQ(follower.files(), 2u);
  // Both processes have ended (atexit): their threads end without Finish().
  const absl::Time deadline = absl::Now() + absl::Seconds(60);  // a bound on hangs only
  while (follower.active() > 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
    follower.Scan();
  }
  EXPECT_EQ(follower.active(), 0u);
  ASSERT_TRUE(follower.Finish().ok());
  const std::vector<std::string> lines = cli_test::Lines(out);
  // version, start, cmd_ancestry, cmd_name, exit, atexit in each; child_start and child_exit.
  ASSERT_EQ(lines.size(), 2u * 6 + 2) << out;
  // The child's lines (d1) come between the parent's child_start and child_exit.
  size_t child_start = 0, child_exit = 0, first_child = 0, last_child = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (absl::StrContains(lines[i], "| child_start ")) child_start = i;
    if (absl::StrContains(lines[i], "| child_exit ")) child_exit = i;
    if (absl::StrContains(lines[i], "d1 |")) {
      if (first_child == 0) first_child = i;
      last_child = i;
    }
  }
  EXPECT_LT(child_start, first_child) << out;
  EXPECT_LT(last_child, child_exit) << out;
}

TEST(DirectoryFollowerTest, FilesThatAppearLaterAndDamagedFiles) {
  const std::string dir = cli_test::NewTempDir("follow_late");
  std::string out;
  DirectoryFollower follower(
      Options(dir), [&out](absl::string_view text) { out.append(text.data(), text.size()); });
  follower.Scan();
  EXPECT_EQ(follower.files(), 0u);
  RecordTree(dir);
  ASSERT_TRUE(cli_test::WriteFile(dir + "/.hidden", "not a trace"));
  ASSERT_TRUE(cli_test::WriteFile(dir + "/garbage", "\x89TWR\r\n\x1a\n and then garbage"));
  follower.Scan();
  EXPECT_EQ(follower.files(), 3u) << "the two traces and the damaged file, not .hidden";
  const absl::Status status = follower.Finish();
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "garbage")) << status;
  EXPECT_TRUE(absl::StrContains(out, "| atexit ")) << "the valid traces are still decoded";
}

}  // namespace
}  // namespace tracewire::tools
