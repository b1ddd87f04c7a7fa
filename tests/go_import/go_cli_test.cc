// The `tracewire` command on Go execution traces: import with and without --from, every
// reading command on a Go trace file directly (validate, stats, query, report, decode to
// Perfetto checked by tests/perfetto's checker), refused versions and salvage.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/perfetto/perfetto_checker.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;

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
