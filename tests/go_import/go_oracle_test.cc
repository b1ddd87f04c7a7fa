// Against Go itself: builds tests/go_import/goprog with each Go toolchain Debian's
// bookworm-backports provides (install/install_go.sh installs them), runs it under
// runtime/trace with a CPU profile, and checks tracewire's reading of the trace against
// `go tool trace -d=1` of the same toolchain (the event records, their times, tasks,
// regions and logs), and the imported trace's tasks, regions, logs, samples per function
// and goroutines against the same output.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/go_import/go_compare.h"
#include "tools/go_import/go_import.h"

namespace tracewire::testing {
namespace {

// Runs `command` with sh; its exit status.
int Shell(const std::string& command) { return std::system(command.c_str()); }

class GoOracleTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoOracleTest, TracewireReadsWhatGoReads) {
  const std::string version = GetParam();
  const std::string go = absl::StrCat("/usr/lib/go-", version, "/bin/go");
  ASSERT_TRUE(std::filesystem::exists(go))
      << go << " is missing: install/install_go.sh installs Go 1.22 and 1.23";
  const char* tmp_env = std::getenv("TEST_TMPDIR");
  const std::string tmp = absl::StrCat(tmp_env != nullptr ? tmp_env : "/tmp", "/go-", version);
  const std::string src = tmp + "/src";
  std::filesystem::create_directories(src);
  for (const char* file : {"main.go", "go.mod"}) {
    std::filesystem::copy_file(absl::StrCat("tests/go_import/goprog/", file),
                               absl::StrCat(src, "/", file),
                               std::filesystem::copy_options::overwrite_existing);
  }
  const std::string env =
      absl::StrCat("GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod GOTELEMETRY=off HOME=", tmp,
                   " GOCACHE=", tmp, "/cache GOPATH=", tmp, "/gopath GOTMPDIR=", tmp, " ");
  ASSERT_EQ(Shell(absl::StrCat("cd ", src, " && ", env, go, " build -o ", tmp, "/goprog .")), 0);
  ASSERT_EQ(Shell(absl::StrCat(tmp, "/goprog ", tmp, "/trace.out ", tmp, "/cpu.prof")), 0);
  ASSERT_EQ(
      Shell(absl::StrCat(env, go, " tool trace -d=1 ", tmp, "/trace.out > ", tmp, "/events.txt")),
      0);

  absl::StatusOr<std::string> events = ReadTestFile(tmp + "/events.txt");
  ASSERT_TRUE(events.ok()) << events.status();
  const std::vector<std::string> go_records = GoRecords(*events);
  ASSERT_GT(go_records.size(), 1000u);
  absl::StatusOr<std::string> trace = ReadTestFile(tmp + "/trace.out");
  ASSERT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<std::vector<std::string>> ours = ReadGoRecords(*trace);
  ASSERT_TRUE(ours.ok()) << ours.status();
  EXPECT_EQ(CompareRecords(go_records, *ours), "");
  const bool same_order = go_records == *ours;

  absl::StatusOr<go_trace::GoImportResult> imported = go_trace::ImportGoTrace(*trace, {});
  ASSERT_TRUE(imported.ok()) << imported.status();
  const GoSummary go_summary = SummarizeGo(go_records);
  absl::StatusOr<GoSummary> imported_summary = SummarizeImported(imported->trace);
  ASSERT_TRUE(imported_summary.ok()) << imported_summary.status();
  EXPECT_EQ(CompareImported(go_summary, *imported_summary), "");
  EXPECT_FALSE(go_summary.samples.empty()) << "the CPU profile took no sample";
  std::printf(
      "go %s: %zu events (%s order as Go's), %zu tasks/regions/logs, %zu goroutines created, "
      "%llu generations\n",
      version.c_str(), go_records.size(), same_order ? "the same" : "not the same",
      go_summary.user_events.size(), go_summary.goroutines.size(),
      static_cast<unsigned long long>(imported->generations));
}

INSTANTIATE_TEST_SUITE_P(Toolchains, GoOracleTest, ::testing::Values("1.22", "1.23"));

}  // namespace
}  // namespace tracewire::testing
