// Against Go itself: builds tests/go_import/goprog with each Go toolchain Debian's
// bookworm-backports provides (install/install_go.sh installs them), runs it under
// runtime/trace with a CPU profile, and checks tracewire's reading of the trace against
// `go tool trace -d=1` of the same toolchain (the event records, their times, tasks,
// regions and logs), and the imported trace's tasks, regions (with their tasks), logs,
// samples per function, goroutines and creation flows against the same output. Also the
// import's memory bound on a trace of several generations (benchprog).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "reader/byte_source.h"
#include "tests/go_import/go_compare.h"
#include "tests/perfetto/trace_processor.h"
#include "tools/go_import/go_import.h"

namespace tracewire::testing {
namespace {

// Runs `command` with sh; its exit status.
int Shell(const std::string& command) { return std::system(command.c_str()); }

// A Go toolchain of the test's parameter, and a scratch folder for it.
struct Toolchain {
  std::string version, go, tmp, env;
};

Toolchain ToolchainOf(const std::string& version) {
  Toolchain t;
  t.version = version;
  t.go = absl::StrCat("/usr/lib/go-", version, "/bin/go");
  const char* tmp_env = std::getenv("TEST_TMPDIR");
  t.tmp = absl::StrCat(tmp_env != nullptr ? tmp_env : "/tmp", "/go-", version);
  t.env =
      absl::StrCat("GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=mod GOTELEMETRY=off HOME=", t.tmp,
                   " GOCACHE=", t.tmp, "/cache GOPATH=", t.tmp, "/gopath GOTMPDIR=", t.tmp, " ");
  return t;
}

// Builds the program in tests/go_import/<name> into <tmp>/<name>; its exit status.
int Build(const Toolchain& t, const std::string& name) {
  const std::string src = absl::StrCat(t.tmp, "/src-", name);
  std::filesystem::create_directories(src);
  for (const char* file : {"main.go", "go.mod"}) {
    std::filesystem::copy_file(absl::StrCat("tests/go_import/", name, "/", file),
                               absl::StrCat(src, "/", file),
                               std::filesystem::copy_options::overwrite_existing);
  }
  return Shell(absl::StrCat("cd ", src, " && ", t.env, t.go, " build -o ", t.tmp, "/", name, " ."));
}

class GoOracleTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoOracleTest, TracewireReadsWhatGoReads) {
  const std::string version = GetParam();
  const Toolchain t = ToolchainOf(version);
  const std::string &go = t.go, &tmp = t.tmp, &env = t.env;
  ASSERT_TRUE(std::filesystem::exists(go))
      << go << " is missing: install/install_go.sh installs Go 1.22 and 1.23";
  ASSERT_EQ(Build(t, "goprog"), 0);
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

  // Each goroutine created by another is a flow between two tracks in Perfetto's trace
  // processor, as many as Go's parser reports creations.
  const std::string perfetto = tmp + "/trace.pftrace";
  ASSERT_EQ(Shell(absl::StrCat("tools/tracewire decode --format=perfetto ", tmp, "/trace.out -o ",
                               perfetto)),
            0);
  const std::optional<std::string> shell = FindTraceProcessor("tests/go_import/go_oracle_test.cc");
  ASSERT_TRUE(shell.has_value()) << "Perfetto's trace_processor_shell was not found";
  EXPECT_GE(go_summary.creations, 500u);
  EXPECT_EQ(TraceProcessorQuery(*shell, perfetto,
                                "select count(*), sum(o.track_id != i.track_id) from flow f "
                                "join slice o on f.slice_out = o.id join slice i on "
                                "f.slice_in = i.id where o.category = 'go.create' and "
                                "i.category = 'go.create'"),
            (Rows{{absl::StrCat(go_summary.creations), absl::StrCat(go_summary.creations)}}));
  std::printf(
      "go %s: %zu events (%s order as Go's), %zu tasks/regions/logs, %zu goroutines created, "
      "%llu generations\n",
      version.c_str(), go_records.size(), same_order ? "the same" : "not the same",
      go_summary.user_events.size(), go_summary.goroutines.size(),
      static_cast<unsigned long long>(imported->generations));
}

// Memory is bounded by a generation, not by the trace: a trace of at least 4 generations
// (benchprog for 3.5 s of wall time; Go starts a generation every second, so a loaded
// machine makes more of them, not fewer) converted from its file, a generation at a time.
// The importer's own high-water mark of what it holds for a generation (the Go trace's
// bytes buffered, the packed events, the converted generation) stays below a constant
// times the largest generation's size in the trace, plus a read; no timing is asserted.
TEST_P(GoOracleTest, ImportMemoryIsBoundedByAGeneration) {
  const Toolchain t = ToolchainOf(GetParam());
  ASSERT_TRUE(std::filesystem::exists(t.go))
      << t.go << " is missing: install/install_go.sh installs Go 1.22 and 1.23";
  ASSERT_EQ(Build(t, "benchprog"), 0);
  const std::string trace = t.tmp + "/bench.trace";
  ASSERT_EQ(Shell(absl::StrCat(t.tmp, "/benchprog ", trace, " 3.5")), 0);
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> file = reader::OpenFileSource(trace);
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<std::unique_ptr<go_trace::GoImporter>> importer =
      go_trace::GoImporter::Open(std::move(*file), {});
  ASSERT_TRUE(importer.ok()) << importer.status();
  std::string part;
  uint64_t converted = 0;
  while (true) {
    part.clear();
    absl::StatusOr<bool> more = (*importer)->Next(&part);
    ASSERT_TRUE(more.ok()) << more.status();
    if (!*more) break;
    converted += part.size();
  }
  const uint64_t size = std::filesystem::file_size(trace);
  const uint64_t largest = (*importer)->largest_generation();
  const uint64_t peak = (*importer)->peak_buffered();
  std::printf(
      "go %s: %llu bytes, %llu generations, largest %llu bytes, peak held %llu bytes, "
      "%llu bytes converted\n",
      t.version.c_str(), static_cast<unsigned long long>(size),
      static_cast<unsigned long long>((*importer)->generations()),
      static_cast<unsigned long long>(largest), static_cast<unsigned long long>(peak),
      static_cast<unsigned long long>(converted));
  EXPECT_GE((*importer)->generations(), 4u);
  EXPECT_LT(largest, size);
  EXPECT_LE(peak, go_trace::kPeakPerGenerationByte * largest + go_trace::kPeakSlack);
}

INSTANTIATE_TEST_SUITE_P(Toolchains, GoOracleTest, ::testing::Values("1.22", "1.23"));

}  // namespace
}  // namespace tracewire::testing
