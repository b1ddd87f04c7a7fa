// `tracewire diff` on synthetic traces with known distributions (git Trace2 EVENT streams
// written here, with exact times, and imported): one region 20 % slower, one unchanged
// with a heavy tail, one new, one gone; one run a side and several; the --fail-if exit
// codes; the folded output against `decode --format=folded` of each side; bad input.
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

// What a synthetic run holds.
struct RunSpec {
  uint64_t seed = 1;
  double slow_factor = 1.0;  // work/slow's durations scaled by this
  bool with_new = false;     // work/new present
  bool with_gone = true;     // work/gone present
  int errors = 0;            // error events
  std::string command = "demo";
  int instances = 300;
};

// A Trace2 EVENT stream of one process running `spec`: work/slow (lognormal, median
// 1 ms, sigma 0.3, times slow_factor), work/noisy (lognormal, median 1 ms, sigma 1.5),
// and optionally work/new and work/gone (100 us each).
std::string EventStream(const RunSpec& spec) {
  std::mt19937_64 rng(spec.seed);
  std::lognormal_distribution<double> slow(std::log(1000.0), 0.3), noisy(std::log(1000.0), 1.5);
  const std::string sid = absl::StrFormat("20261122T020000.100000Z-H0a7c9cdf-P%08d", spec.seed);
  absl::Time t = absl::FromUnixSeconds(1795226400);
  std::string out;
  auto event = [&](const std::string& kind, const std::string& rest) {
    absl::StrAppend(&out, "{\"event\":\"", kind, "\",\"sid\":\"", sid,
                    "\",\"thread\":\"main\",\"time\":\"",
                    absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone()), "\"",
                    rest.empty() ? "" : ",", rest, "}\n");
  };
  auto region = [&](const std::string& label, int64_t us) {
    const std::string site =
        absl::StrCat("\"nesting\":1,\"category\":\"work\",\"label\":\"", label, "\"");
    event("region_enter", site);
    t += absl::Microseconds(us);
    event("region_leave", absl::StrCat("\"t_rel\":", us / 1e6, ",", site));
  };
  event("version", "\"evt\":\"3\",\"exe\":\"2.39.5\"");
  event("start", absl::StrCat("\"t_abs\":0,\"argv\":[\"", spec.command, "\"]"));
  event("cmd_name",
        absl::StrCat("\"name\":\"", spec.command, "\",\"hierarchy\":\"", spec.command, "\""));
  for (int i = 0; i < spec.instances; ++i) {
    region("slow", std::max<int64_t>(1, std::llround(slow(rng) * spec.slow_factor)));
    region("noisy", std::max<int64_t>(1, std::llround(noisy(rng))));
    if (spec.with_new) region("new", 100);
    if (spec.with_gone) region("gone", 100);
  }
  for (int i = 0; i < spec.errors; ++i) event("error", "\"msg\":\"boom\",\"fmt\":\"boom\"");
  event("exit", "\"t_abs\":1,\"code\":0");
  event("atexit", "\"t_abs\":1,\"code\":0");
  return out;
}

// Writes the run as a trace at `path`.
void WriteRun(const RunSpec& spec, const std::string& path) {
  const std::string json = path + ".json";
  ASSERT_TRUE(WriteFile(json, EventStream(spec)));
  const CommandResult r =
      RunCommand({Tracewire(), "import", "--from=trace2-event", json, "-o", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::remove(json);
}

// One key of the CSV output.
struct Row {
  std::string verdict;
  double change = NAN, low = NAN, high = NAN;
};

// The CSV output by "kind name".
std::map<std::string, Row> ParseCsv(const std::string& csv) {
  std::map<std::string, Row> rows;
  std::vector<std::string> lines = Lines(csv);
  EXPECT_FALSE(lines.empty());
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> f = absl::StrSplit(lines[i], ',');
    if (f.size() < 9) {
      ADD_FAILURE() << lines[i];
      continue;
    }
    Row row;
    row.verdict = f[2];
    if (!f[3].empty()) row.change = std::stod(f[3]);
    if (!f[4].empty()) row.low = std::stod(f[4]);
    if (!f[5].empty()) row.high = std::stod(f[5]);
    rows[f[0] + " " + f[1]] = row;
  }
  return rows;
}

CommandResult Diff(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Tracewire(), "diff"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv);
}

void ExpectKnownChanges(const std::map<std::string, Row>& rows) {
  ASSERT_TRUE(rows.contains("region demo: work/slow"));
  const Row& slow = rows.at("region demo: work/slow");
  EXPECT_EQ(slow.verdict, "slower");
  EXPECT_LE(slow.low, 0.2);  // the interval holds the true +20 %
  EXPECT_GE(slow.high, 0.2);
  EXPECT_GT(slow.low, 0);
  EXPECT_EQ(rows.at("region demo: work/noisy").verdict, "same");
  EXPECT_EQ(rows.at("region demo: work/new").verdict, "new");
  EXPECT_EQ(rows.at("region demo: work/gone").verdict, "gone");
  // Nothing else changed significantly but the command, whose wall time holds the slower
  // region's (with several runs a side its +2-3 % can be told from noise).
  EXPECT_NE(rows.at("command demo").verdict, "faster");
  for (const auto& [key, row] : rows) {
    if (key != "region demo: work/slow" && key != "command demo") {
      EXPECT_TRUE(row.verdict != "slower" && row.verdict != "faster") << key;
    }
  }
}

TEST(DiffCliTest, OneRunASideFlagsTheSlowerRegionOnly) {
  const std::string dir = NewTempDir("one_run");
  WriteRun({.seed = 1}, dir + "/base.twr");
  WriteRun({.seed = 2, .slow_factor = 1.2, .with_new = true, .with_gone = false}, dir + "/new.twr");
  const CommandResult r = Diff({"--format=csv", dir + "/base.twr", dir + "/new.twr"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectKnownChanges(ParseCsv(r.out));
  // The table puts the significant change first.
  const CommandResult table = Diff({dir + "/base.twr", dir + "/new.twr"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const std::vector<std::string> lines = Lines(table.out);
  // One run a side: the table warns that run-to-run noise is not measured.
  EXPECT_TRUE(absl::StrContains(table.out, "note: one run on a side")) << table.out;
  size_t header = 0;
  while (header < lines.size() && !absl::StartsWith(lines[header], "verdict")) ++header;
  ASSERT_LT(header + 1, lines.size()) << table.out;
  EXPECT_TRUE(absl::StartsWith(lines[header + 1], "slower")) << table.out;
  EXPECT_TRUE(absl::EndsWith(lines[header + 1], "demo: work/slow")) << table.out;
  // Markdown and JSON hold the same verdicts.
  const CommandResult md = Diff({"--format=markdown", dir + "/base.twr", dir + "/new.twr"});
  EXPECT_TRUE(absl::StrContains(md.out, "| **slower** | region |")) << md.out;
  const CommandResult json = Diff({"--format=json", dir + "/base.twr", dir + "/new.twr"});
  EXPECT_TRUE(absl::StrContains(json.out, "\"name\":\"demo: work/slow\",\"verdict\":\"slower\""))
      << json.out;
  // --only and --min-count filter the keys.
  const CommandResult only =
      Diff({"--format=csv", "--only=commands", dir + "/base.twr", dir + "/new.twr"});
  const auto only_rows = ParseCsv(only.out);
  ASSERT_EQ(only_rows.size(), 1u) << only.out;
  EXPECT_TRUE(only_rows.contains("command demo"));
  const CommandResult min =
      Diff({"--format=csv", "--min-count=2", dir + "/base.twr", dir + "/new.twr"});
  EXPECT_FALSE(ParseCsv(min.out).contains("command demo"));
  // --min-change: a +20 % change is not significant when 50 % is the least that counts; the
  // one-run side's p-value over its blocks is written.
  const auto rows =
      ParseCsv(Diff({"--format=csv", "--min-change=50", dir + "/base.twr", dir + "/new.twr"}).out);
  EXPECT_EQ(rows.at("region demo: work/slow").verdict, "same");
  EXPECT_TRUE(absl::StrContains(json.out, "\"p_runs\":0")) << json.out;
  EXPECT_EQ(Diff({"--min-change=-1", dir + "/base.twr", dir + "/new.twr"}).exit_code, 2);
}

TEST(DiffCliTest, SeveralRunsASideAsDirectoriesAndLists) {
  const std::string dir = NewTempDir("runs");
  std::vector<std::string> base_list, new_list;
  for (int run = 0; run < 5; ++run) {
    const std::string b = absl::StrCat(dir, "/base/run", run);
    const std::string n = absl::StrCat(dir, "/new/run", run);
    std::filesystem::create_directories(b);
    std::filesystem::create_directories(n);
    WriteRun({.seed = 10 + static_cast<uint64_t>(run), .instances = 100}, b + "/trace.twr");
    WriteRun({.seed = 20 + static_cast<uint64_t>(run),
              .slow_factor = 1.2,
              .with_new = true,
              .with_gone = false,
              .instances = 100},
             n + "/trace.twr");
    base_list.push_back(b);
    new_list.push_back(n);
  }
  const CommandResult r = Diff({"--format=csv", dir + "/base", dir + "/new"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectKnownChanges(ParseCsv(r.out));
  const CommandResult table = Diff({dir + "/base", dir + "/new"});
  EXPECT_TRUE(absl::StrContains(table.out, "(5 runs, ")) << table.out;
  EXPECT_FALSE(absl::StrContains(table.out, "note: one run")) << table.out;
  std::vector<std::string> args = {"--format=csv", "--base"};
  args.insert(args.end(), base_list.begin(), base_list.end());
  args.push_back("--new");
  args.insert(args.end(), new_list.begin(), new_list.end());
  const CommandResult listed = Diff(args);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(listed.out, r.out);
}

TEST(DiffCliTest, FailIfExitCodes) {
  const std::string dir = NewTempDir("gate");
  WriteRun({.seed = 1}, dir + "/base.twr");
  WriteRun({.seed = 2, .slow_factor = 1.2, .errors = 2}, dir + "/new.twr");
  const std::string b = dir + "/base.twr", n = dir + "/new.twr";
  CommandResult r = Diff({"--fail-if=p50>+10%", b, n});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "p50>+10%: region demo: work/slow p50 +")) << r.err;
  EXPECT_EQ(Diff({"--fail-if=p50>+50%", b, n}).exit_code, 0);
  EXPECT_EQ(Diff({"--fail-if=mean<-10%", b, n}).exit_code, 0);
  // The noisy region's p95 may move a lot, but it is noise: only work/slow can fail it.
  r = Diff({"--fail-if=p95>+5%", "--only=regions", b, n});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_FALSE(absl::StrContains(r.err, "noisy")) << r.err;
  r = Diff({"--fail-if=errors>0", b, n});
  EXPECT_EQ(r.exit_code, 5) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "2 more error events per run")) << r.err;
  EXPECT_EQ(Diff({"--fail-if=errors>0", "--only=regions", b, n}).exit_code, 5);  // still counted
  EXPECT_EQ(Diff({"--fail-if=errors>2", b, n}).exit_code, 0);
  EXPECT_EQ(Diff({"--fail-if=errors>0", n, b}).exit_code, 0);  // fewer errors
  EXPECT_EQ(Diff({"--fail-if=p96>+5%", b, n}).exit_code, 2);
  EXPECT_EQ(Diff({"--fail-if=p50>5", b, n}).exit_code, 2);
  EXPECT_EQ(Diff({"--only=nothing", b, n}).exit_code, 2);
  EXPECT_EQ(Diff({b}).exit_code, 2);
}

TEST(DiffCliTest, FoldedEqualsDecodeFoldedOfEachSide) {
  const std::string dir = NewTempDir("folded");
  const std::string b = dir + "/base.twr", n = dir + "/new.twr";
  for (const auto& [path, seconds] : {std::pair{b, "0.05"}, std::pair{n, "0.1"}}) {
    RunOptions options;
    options.env = {{"TRACEWIRE", path}, {"TRACEWIRE_CPU_PROFILE", "500"}};
    const CommandResult run = RunCommand({Runfile("tests/viewers/cpu_workload"), seconds}, options);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{}, std::vector<std::string>{"--regions"}}) {
    std::vector<std::string> args = {"--format=folded"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back(b);
    args.push_back(n);
    const CommandResult diff = Diff(args);
    ASSERT_EQ(diff.exit_code, 0) << diff.err;
    std::map<std::string, std::pair<std::string, std::string>> expected;
    for (const auto& [path, first] : {std::pair{b, true}, std::pair{n, false}}) {
      std::vector<std::string> decode = {Tracewire(), "decode", "--format=folded"};
      decode.insert(decode.end(), flags.begin(), flags.end());
      decode.push_back(path);
      const CommandResult r = RunCommand(decode);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      for (const std::string& line : Lines(r.out)) {
        const size_t space = line.rfind(' ');
        auto& weights = expected[line.substr(0, space)];
        (first ? weights.first : weights.second) = line.substr(space + 1);
      }
    }
    ASSERT_FALSE(expected.empty());
    std::string want;
    for (auto& [stack, weights] : expected) {
      absl::StrAppend(&want, stack, " ", weights.first.empty() ? "0" : weights.first, " ",
                      weights.second.empty() ? "0" : weights.second, "\n");
    }
    EXPECT_EQ(diff.out, want);
  }
}

TEST(DiffCliTest, BadInputIsNamedAndTheRestCompared) {
  const std::string dir = NewTempDir("bad");
  for (int run = 0; run < 4; ++run) {
    std::filesystem::create_directories(absl::StrCat(dir, "/base/run", run));
    std::filesystem::create_directories(absl::StrCat(dir, "/new/run", run));
    WriteRun({.seed = 30 + static_cast<uint64_t>(run), .instances = 100},
             absl::StrCat(dir, "/base/run", run, "/t.twr"));
    WriteRun({.seed = 40 + static_cast<uint64_t>(run), .instances = 100},
             absl::StrCat(dir, "/new/run", run, "/t.twr"));
  }
  // A damaged run among good ones: its file cut in half.
  const std::string victim = dir + "/new/run2/t.twr";
  std::string bytes = ReadFile(victim);
  ASSERT_TRUE(WriteFile(victim, bytes.substr(0, bytes.size() / 2)));
  CommandResult r = Diff({"--format=csv", dir + "/base", dir + "/new"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(r.err, "run2/t.twr")) << r.err;
  auto rows = ParseCsv(r.out);
  EXPECT_TRUE(rows.contains("region demo: work/slow")) << r.out;
  // A side with no events: a file of no trace.
  ASSERT_TRUE(WriteFile(dir + "/empty.twr", ""));
  r = Diff({"--format=csv", dir + "/empty.twr", dir + "/base"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(r.err, "no events; every key of the other side is new")) << r.err;
  rows = ParseCsv(r.out);
  EXPECT_EQ(rows["region demo: work/slow"].verdict, "new") << r.out;
  // A run that does not exist.
  r = Diff(
      {"--format=csv", "--base", dir + "/base/run0", dir + "/nope", "--new", dir + "/new/run0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(r.err, "nope not compared")) << r.err;
  // Mismatched commands.
  WriteRun({.seed = 50, .command = "other"}, dir + "/other.twr");
  r = Diff({dir + "/base/run0/t.twr", dir + "/other.twr"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "the sides ran different commands (base: demo; new: other)"))
      << r.err;
}

// `query NAME=PATH`: each named input in its own schema of one database, equal to the
// input loaded alone; the user's SQL still cannot attach.
TEST(DiffCliTest, QuerySchemasPerNamedInput) {
  const std::string dir = NewTempDir("query");
  const std::string b = dir + "/base.twr", n = dir + "/new.twr";
  WriteRun({.seed = 1}, b);
  WriteRun({.seed = 2, .slow_factor = 1.2, .with_new = true, .with_gone = false}, n);
  auto query = [](const std::vector<std::string>& args) {
    std::vector<std::string> argv = {Tracewire(), "query", "--format=csv"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv);
  };
  auto stats = [](const std::string& schema) {
    return "SELECT name, count, p50_dur FROM " + schema + "region_stats ORDER BY name";
  };
  const CommandResult both = query({"base=" + b, "new=" + n, "-c", stats("base."), "-c",
                                    stats("new."), "-c", "SELECT count(*) FROM slice"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const CommandResult alone_b = query({b, "-c", stats("")});
  const CommandResult alone_n = query({n, "-c", stats("")});
  EXPECT_EQ(both.out,
            alone_b.out + "\n" + alone_n.out + "\ncount(*)\n0\n");  // results apart by a blank line
  // A comparison across the schemas: the regions on both sides, p50 change.
  const CommandResult joined =
      query({"base=" + b, "new=" + n, "-c",
             "SELECT b.name, round(1.0 * n.p50_dur / b.p50_dur, 1) FROM base.region_stats b "
             "JOIN new.region_stats n USING (category, name) WHERE b.name = 'slow'"});
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_EQ(joined.out, "name,\"round(1.0 * n.p50_dur / b.p50_dur, 1)\"\nslow,1.2\n");
  EXPECT_EQ(query({"base=" + b, "-c", "ATTACH ':memory:' AS x"}).exit_code, 2);
  EXPECT_EQ(query({"a=" + b, "a=" + n, "-c", "SELECT 1"}).exit_code, 2);
  EXPECT_EQ(query({"--db=" + dir + "/x.db", "a=" + b}).exit_code, 2);
}

}  // namespace
}  // namespace tracewire::cli_test
