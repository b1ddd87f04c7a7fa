// OTLP/JSON checked with the official OpenTelemetry schema (the protobufjs code generated
// from opentelemetry-proto that @opentelemetry/otlp-transformer ships; see
// tests/consumers/otlp_schema_check.mjs): `tracewire decode --format=otlp` of the demo and a
// process tree, of real git commands imported with `tracewire import`, and of a large
// imported trace whose spans fill several requests. Every request must pass; the
// OTLP semantics (status, typed attributes) are asserted on the same output.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/cli/git_support.h"
#include "tests/export/export_support.h"
#include "tests/export/otlp_support.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

std::string Tracewire() { return Tool("tools/tracewire"); }

// `tracewire decode --format=otlp INPUT -o <dir>/<name>.jsonl`; returns the output path.
std::string DecodeOtlp(const std::string& input, const std::string& dir, const std::string& name) {
  const std::string out = absl::StrCat(dir, "/", name, ".jsonl");
  const cli_test::CommandResult r =
      cli_test::RunCommand({Tracewire(), "decode", "--format=otlp", input, "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return out;
}

const OtlpSpan* FindSpan(const std::vector<OtlpSpan>& spans, const std::string& name) {
  for (const OtlpSpan& s : spans) {
    if (s.span.value("name", "") == name) return &s;
  }
  return nullptr;
}

TEST(OtlpSchemaTest, DemoAndProcessTree) {
  const DemoAndTreeTraces traces = RecordDemoAndTree("otlp_schema");
  const std::string dir = TempDir("otlp_schema_out");
  const std::vector<std::string> files = {
      DecodeOtlp(traces.demo_file, dir, "demo_file"), DecodeOtlp(traces.demo_dir, dir, "demo_dir"),
      DecodeOtlp(traces.tree_file, dir, "tree_file"), DecodeOtlp(traces.tree_dir, dir, "tree_dir")};
  const SchemaCheck check = CheckOtlpSchema(files);
  EXPECT_TRUE(check.passed) << check.output;
  EXPECT_EQ(check.requests, 2u + 2u + 3u + 3u) << check.output;  // one per process
  EXPECT_GE(check.spans, 2u * 29u) << check.output;

  // The demo fails (an error, exit code 1): its process span is an ERROR with the message.
  const std::vector<OtlpSpan> spans = OtlpSpans(ReadWholeFile(files[1]));
  const OtlpSpan* status = FindSpan(spans, "demo:status");
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->span["status"]["code"], 2);
  EXPECT_EQ(status->span["status"]["message"],
            "pathspec 'nonexistent.txt' did not match any file(s)");
  const OtlpSpan* child = FindSpan(spans, "demo:child");
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->span["status"]["code"], 1);
  EXPECT_FALSE(child->span["status"].contains("message"));
}

class GitOtlpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cli_test::HasGit()) GTEST_SKIP() << "git is not installed";
  }
};

TEST_F(GitOtlpTest, ImportedGitCommands) {
  const std::string root = cli_test::NewTempDir("otlp_git");
  const cli_test::CommandResult setup = cli_test::MakeGitRepository(root);
  ASSERT_EQ(setup.exit_code, 0) << setup.err;
  const std::string events = root + "/git.event";
  cli_test::RunOptions options = cli_test::HermeticGitOptions(root, root + "/repo");
  options.env.insert(options.env.end(),
                     {{"GIT_TRACE2_EVENT", events}, {"GIT_TRACE2_EVENT_NESTING", "100"}});
  // A commit that runs its hook, a status with a submodule child, and a failing command.
  const cli_test::CommandResult git =
      cli_test::Shell(absl::StrCat("echo c > c && ", cli_test::kGit, " add c && ", cli_test::kGit,
                                   " commit -qm hooked && git status >/dev/null && "
                                   "git rev-parse --verify nonexistent 2>/dev/null; exit 0"),
                      options);
  ASSERT_EQ(git.exit_code, 0) << git.err;
  const std::string trace = root + "/git.twr";
  const cli_test::CommandResult imported =
      cli_test::RunCommand({Tracewire(), "import", "--from=trace2-event", events, "-o", trace});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const std::string otlp = DecodeOtlp(trace, root, "git");
  const SchemaCheck check = CheckOtlpSchema({otlp});
  EXPECT_TRUE(check.passed) << check.output;
  // git add, commit, status, its submodule child, rev-parse, and more.
  EXPECT_GE(check.requests, 5u) << check.output;

  const std::vector<OtlpSpan> spans = OtlpSpans(ReadWholeFile(otlp));
  const OtlpSpan* rev_parse = FindSpan(spans, "git:rev-parse");
  ASSERT_NE(rev_parse, nullptr);
  EXPECT_EQ(rev_parse->span["status"]["code"], 2) << rev_parse->span;
  EXPECT_TRUE(
      absl::StrContains(rev_parse->span["status"].value("message", ""), "Needed a single revision"))
      << rev_parse->span;
  EXPECT_EQ(OtlpAttribute(rev_parse->span["attributes"], "process.exit.code"),
            json({{"intValue", "128"}}));
  const OtlpSpan* commit = FindSpan(spans, "git:commit");
  ASSERT_NE(commit, nullptr);
  EXPECT_EQ(commit->span["status"]["code"], 1) << commit->span;
  const OtlpSpan* hook = FindSpan(spans, "child(hook:pre-commit)");
  ASSERT_NE(hook, nullptr);
  EXPECT_EQ(hook->span["status"]["code"], 1) << hook->span;
  EXPECT_TRUE(OtlpAttribute(hook->span["attributes"], "process.pid").contains("intValue"));
  // Regions carry git's own source location.
  const OtlpSpan* region = FindSpan(spans, "region(index,do_read_index)");
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(OtlpAttribute(region->span["attributes"], "code.filepath"),
            json({{"stringValue", "read-cache.c"}}));
}

TEST(OtlpSchemaTest, LargeTrace) {
  const std::string dir = TempDir("otlp_large");
  constexpr int kRegions = 6000;
  ASSERT_TRUE(cli_test::WriteFile(
      dir + "/big.event",
      SyntheticGitEventStream("20261122T020000.100000Z-H0a7c9cdf-P00001000", kRegions)));
  const cli_test::CommandResult imported = cli_test::RunCommand(
      {Tracewire(), "import", "--from=trace2-event", dir + "/big.event", "-o", dir + "/big.twr"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const std::string otlp = DecodeOtlp(dir + "/big.twr", dir, "big");
  const SchemaCheck check = CheckOtlpSchema({otlp});
  EXPECT_TRUE(check.passed) << check.output;
  // Two regions per pair, 10 worker regions, the thread, the child and the process; the
  // process writes its finished spans early, 10000 at a time.
  EXPECT_EQ(check.spans, 2u * kRegions + 10 + 3) << check.output;
  EXPECT_EQ(check.requests, 2u) << check.output;

  const std::vector<OtlpSpan> spans = OtlpSpans(ReadWholeFile(otlp));
  const OtlpSpan* process = FindSpan(spans, "git:big");
  ASSERT_NE(process, nullptr);
  EXPECT_EQ(process->span["status"]["code"], 1);  // exit 0
  const OtlpSpan* child = FindSpan(spans, "child(class:unknown)");
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(child->span["status"]["code"], 2);
  EXPECT_EQ(child->span["status"]["message"], "the child process exited with code 3");
  EXPECT_EQ(OtlpAttribute(child->span["attributes"], "process.exit.code"),
            json({{"intValue", "3"}}));
}

}  // namespace
}  // namespace tracewire::testing
