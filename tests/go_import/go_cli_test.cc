// The `tracewire` command on Go execution traces: import with and without --from, every
// reading command on a Go trace file directly (validate, stats, query, report, decode to
// Perfetto checked by tests/perfetto's checker), refused versions and salvage.
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/go_import/go_compare.h"
#include "tests/perfetto/perfetto_checker.h"
#include "tests/perfetto/trace_processor.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Fixture(const std::string& name) {
  return absl::StrCat("tests/go_import/testdata/", name, ".trace");
}

class GoCliTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoCliTest, ImportDetectsGoTracesAndTheResultValidates) {
  const std::string dir = NewTempDir(absl::StrCat("import_", GetParam()));
  const std::string with_flag = dir + "/flag.twr", detected = dir + "/detected.twr";
  CommandResult r =
      RunCommand({Tracewire(), "import", "--from=go", Fixture(GetParam()), "-o", with_flag});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunCommand({Tracewire(), "import", Fixture(GetParam()), "-o", detected});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(with_flag), ReadFile(detected));
  r = RunCommand({Tracewire(), "validate", detected});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("2 generations"));
}

TEST_P(GoCliTest, CommandsReadGoTracesDirectly) {
  const std::string trace = Fixture(GetParam());
  CommandResult r = RunCommand({Tracewire(), "validate", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunCommand({Tracewire(), "stats", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("main.run.func1"));
  // The workload's 40 jobs, each a "job" region with a nested "compute" region.
  r = RunCommand({Tracewire(), "query", "--format=csv", "-c",
                  "select name, count(*) from slice where category = 'go.region' and name in "
                  "('job', 'compute') group by name order by name",
                  trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("compute,40"));
  EXPECT_THAT(r.out, HasSubstr("job,40"));
  const std::string dir = NewTempDir(absl::StrCat("read_", GetParam()));
  r = RunCommand({Tracewire(), "report", trace, "-o", dir + "/report.html"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = RunCommand({Tracewire(), "decode", "--format=perfetto", trace, "-o", dir + "/t.pftrace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const testing::CheckedTrace checked = testing::CheckPerfettoTrace(ReadFile(dir + "/t.pftrace"));
  EXPECT_TRUE(checked.problems.empty()) << checked.problems.front();
  EXPECT_GE(checked.thread_tracks.size(), 500u);
  EXPECT_FALSE(checked.samples_by_thread.empty());
  EXPECT_FALSE(checked.counters.empty());
}

// The other outputs read a Go trace too: OTLP has a span per user region, the folded
// stacks hold the CPU samples' stacks (the workload spins in main.spin), and `diff` of a
// trace against itself finds the 40 jobs on both sides and nothing changed.
TEST_P(GoCliTest, OtlpFoldedAndDiffReadGoTraces) {
  const std::string trace = Fixture(GetParam());
  CommandResult r = RunCommand({Tracewire(), "decode", "--format=otlp", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t job_spans = 0;
  for (size_t at = r.out.find("\"name\":\"region(go_region,job)\""); at != std::string::npos;
       at = r.out.find("\"name\":\"region(go_region,job)\"", at + 1)) {
    ++job_spans;
  }
  EXPECT_EQ(job_spans, 40u);
  r = RunCommand({Tracewire(), "decode", "--format=folded", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(";main.spin "));
  r = RunCommand({Tracewire(), "diff", "--format=csv", trace, trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("region,go.region/job,same,0,"));
  for (const char* verdict : {"slower", "faster", "new", "gone"}) {
    EXPECT_THAT(r.out, Not(HasSubstr(absl::StrCat(",", verdict, ","))));
  }
}

// Goroutine creation is a flow from the creating goroutine to the created one: one per
// creation Go's own parser reports (its NotExist->Runnable/Waiting transitions in a
// goroutine), as Perfetto's trace processor reads the Perfetto export's flows, and as the
// Chrome export's flow events ("s" then "f") draw them. Each flow joins two goroutines' tracks.
TEST_P(GoCliTest, GoroutineCreationIsAFlowFromCreatorToCreated) {
  absl::StatusOr<std::string> go_text =
      testing::ReadTestFile(absl::StrCat("tests/go_import/testdata/", GetParam(), ".events.zst"));
  ASSERT_TRUE(go_text.ok()) << go_text.status();
  const testing::GoSummary go = testing::SummarizeGo(testing::GoRecords(*go_text));
  ASSERT_GE(go.creations, 500u);
  const std::string trace = Fixture(GetParam());
  const std::string dir = NewTempDir(absl::StrCat("flow_", GetParam()));

  CommandResult r =
      RunCommand({Tracewire(), "decode", "--format=perfetto", trace, "-o", dir + "/t.pftrace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::optional<std::string> shell =
      testing::FindTraceProcessor(Runfile("tests/go_import/go_cli_test.cc"));
  ASSERT_TRUE(shell.has_value()) << "Perfetto's trace_processor_shell was not found";
  const testing::Rows flows = testing::TraceProcessorQuery(
      *shell, dir + "/t.pftrace",
      "select count(*), sum(o.track_id != i.track_id) from flow f "
      "join slice o on f.slice_out = o.id join slice i on f.slice_in = i.id "
      "where o.category = 'go.create' and i.category = 'go.create'");
  EXPECT_EQ(flows, (testing::Rows{{absl::StrCat(go.creations), absl::StrCat(go.creations)}}));

  r = RunCommand({Tracewire(), "decode", "--format=chrome", trace, "-o", dir + "/t.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(dir + "/t.json");
  const nlohmann::json chrome = nlohmann::json::parse(in);
  std::map<int64_t, std::vector<int64_t>> flow_tids;  // go.create flow id -> its events' tids
  const nlohmann::json& events = chrome.is_array() ? chrome : chrome["traceEvents"];
  for (const nlohmann::json& e : events) {
    const std::string ph = e.value("ph", "");
    if ((ph == "s" || ph == "t" || ph == "f") && e.value("cat", "") == "go.create") {
      flow_tids[e["id"].get<int64_t>()].push_back(e["tid"].get<int64_t>());
    }
  }
  EXPECT_EQ(flow_tids.size(), go.creations);
  for (const auto& [id, tids] : flow_tids) {
    ASSERT_EQ(tids.size(), 2u) << "flow " << id;
    EXPECT_NE(tids[0], tids[1]) << "flow " << id;
  }
}

// A user region belongs to its task in SQL (slice.task_id) as in Go's parser: the same
// (region type, task) pairs as Go's RegionBegin events name (those of a task other than
// the background task, 0).
TEST_P(GoCliTest, RegionsBelongToTheirTasks) {
  absl::StatusOr<std::string> go_text =
      testing::ReadTestFile(absl::StrCat("tests/go_import/testdata/", GetParam(), ".events.zst"));
  ASSERT_TRUE(go_text.ok()) << go_text.status();
  std::map<std::string, int> go_pairs;
  for (const std::string& record : testing::GoRecords(*go_text)) {
    const std::string line = record.substr(0, record.find('\n'));
    if (!absl::StrContains(line, " RegionBegin ")) continue;
    const size_t task = line.find(" Task=") + 6;
    const std::string id = line.substr(task, line.find(' ', task) - task);
    const size_t type = line.find(" Type=\"") + 7;
    if (id != "0") ++go_pairs[absl::StrCat(line.substr(type, line.rfind('"') - type), ",", id)];
  }
  ASSERT_GE(go_pairs.size(), 2u);
  const testing::Rows rows = testing::TracewireQuery(
      Fixture(GetParam()),
      "select name, task_id, count(*) from slice where category = 'go.region' and "
      "task_id is not null group by 1, 2");
  std::map<std::string, int> ours;
  for (const std::vector<std::string>& row : rows) {
    ASSERT_EQ(row.size(), 3u);
    ours[absl::StrCat(row[0], ",", row[1])] = std::stoi(row[2]);
  }
  EXPECT_EQ(ours, go_pairs);
}

// A Go trace on stdin is told by its header as a file is, by every command that reads
// stdin: the same output as the file gives.
TEST_P(GoCliTest, GoTraceOnStdinIsReadAsAFileIs) {
  const std::string trace = Fixture(GetParam());
  RunOptions in;
  in.stdin_path = trace;
  const std::vector<std::vector<std::string>> commands = {
      {"decode", "--format=chrome"},
      {"query", "--format=csv", "-c",
       "select category, name, count(*) from slice group by 1, 2 order by 1, 2"},
      {"validate"},
      {"stats"},
  };
  for (const std::vector<std::string>& command : commands) {
    std::vector<std::string> from_file = {Tracewire()};
    from_file.insert(from_file.end(), command.begin(), command.end());
    std::vector<std::string> from_stdin = from_file;
    from_file.push_back(trace);
    from_stdin.push_back("-");
    const CommandResult file = RunCommand(from_file);
    const CommandResult piped = RunCommand(from_stdin, in);
    ASSERT_EQ(file.exit_code, 0) << command[0] << ": " << file.err;
    EXPECT_EQ(piped.exit_code, 0) << command[0] << ": " << piped.err;
    EXPECT_FALSE(file.out.empty()) << command[0];
    if (command[0] == "decode" || command[0] == "query") {
      EXPECT_EQ(piped.out, file.out) << command[0];
    } else {
      EXPECT_THAT(piped.out, HasSubstr(command[0] == "stats" ? "generations: 2" : "2 generations"))
          << command[0] << ": " << piped.out;
    }
  }
  const std::string dir = NewTempDir(absl::StrCat("stdin_", GetParam()));
  CommandResult r = RunCommand({Tracewire(), "report", "-", "-o", dir + "/report.html"}, in);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(ReadFile(dir + "/report.html"), HasSubstr("main.run.func1"));
  r = RunCommand({Tracewire(), "import", "-", "-o", dir + "/piped.twr"}, in);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunCommand({Tracewire(), "import", trace, "-o", dir + "/file.twr"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(dir + "/piped.twr"), ReadFile(dir + "/file.twr"));
}

TEST_P(GoCliTest, SalvageKeepsTheWholeGenerationsOfACutTrace) {
  const std::string dir = NewTempDir(absl::StrCat("salvage_", GetParam()));
  const std::string whole = ReadFile(Fixture(GetParam()));
  const std::string cut = dir + "/cut.trace";
  ASSERT_TRUE(WriteFile(cut, whole.substr(0, whole.size() - 100)));
  CommandResult r = RunCommand({Tracewire(), "import", cut, "-o", dir + "/strict.twr"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("truncated batch"));
  r = RunCommand({Tracewire(), "import", "--salvage", cut, "-o", dir + "/kept.twr"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("lost: generation 2"));
  r = RunCommand({Tracewire(), "validate", dir + "/kept.twr"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("1 generations"));
}

INSTANTIATE_TEST_SUITE_P(Versions, GoCliTest, ::testing::Values("go122", "go123"));

TEST(GoCliVersionTest, OtherGoVersionsAreRefusedNamingTheVersion) {
  const std::string dir = NewTempDir("version");
  ASSERT_TRUE(WriteFile(dir + "/old.trace", std::string("go 1.21 trace\0\0\0\x01\x02", 18)));
  CommandResult r = RunCommand({Tracewire(), "import", dir + "/old.trace", "-o", dir + "/o.twr"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("go 1.21"));
  r = RunCommand({Tracewire(), "validate", dir + "/old.trace"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("go 1.21 is not supported"));
}

}  // namespace
}  // namespace tracewire::cli_test
