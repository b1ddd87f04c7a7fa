// The CPU profile of a trace read by the consumers people open it with: the Chrome DevTools
// trace engine (its samples handler, and its timeline of profile calls under the regions)
// and speedscope (the Chrome JSON and the folded stacks), through
// tests/consumers/cpu_profile_consumers.mjs. The expectations (samples per thread, samples
// per function, the folded total weight) come from the reader's events, not from the
// outputs.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/reader.h"
#include "tests/cli/cli_runner.h"
#include "tests/consumers/node_runner.h"

namespace tracewire::viewers_test {
namespace {

using cli_test::CommandResult;
using cli_test::Runfile;
using nlohmann::json;

constexpr const char* kBurners[] = {"TwBurnHeavy", "TwBurnLight"};

// Per thread name: its samples and, per burning function, the samples whose stack holds
// it; and the sum of the samples' weights.
json ExpectFromTrace(const std::string& path) {
  struct Thread {
    int samples = 0;
    std::map<std::string, int> functions;
  };
  std::map<std::string, Thread> threads;
  uint64_t weight = 0;
  std::map<std::string, uint64_t> function_weights;
  absl::StatusOr<std::unique_ptr<reader::Reader>> file = reader::Reader::OpenFile(path);
  EXPECT_TRUE(file.ok()) << file.status();
  if (!file.ok()) return {};
  while (true) {
    absl::StatusOr<const reader::Event*> next = (*file)->Next();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || *next == nullptr) break;
    const reader::Event& e = **next;
    if (e.kind != reader::EventKind::kCpuSample) continue;
    Thread& t = threads[std::string(e.thread_name)];
    ++t.samples;
    weight += e.count;
    std::set<std::string> in_stack;
    for (const reader::SymbolFrame& frame : e.stack) in_stack.emplace(frame.func);
    for (const char* burner : kBurners) {
      if (in_stack.count(burner) == 0) continue;
      ++t.functions[burner];
      function_weights[burner] += e.count;
    }
  }
  json list = json::array();
  for (const auto& [name, t] : threads) {
    json thread = {{"name", name}, {"samples", t.samples}, {"functions", json::object()}};
    for (const auto& [function, count] : t.functions) thread["functions"][function] = count;
    if (absl::EndsWith(name, ":heavy")) thread["region"] = "heavy";
    if (absl::EndsWith(name, ":light")) thread["region"] = "light";
    list.push_back(thread);
  }
  return {{"threads", list}, {"folded_weight", weight}, {"function_weights", function_weights}};
}

TEST(CpuProfileConsumersTest, DevToolsAndSpeedscopeBuildTheTracesProfiles) {
  const std::string dir = cli_test::NewTempDir("cpu_profile");
  const std::string trace = dir + "/trace.twr";
  cli_test::RunOptions options;
  options.env = {{"TRACEWIRE", trace}, {"TRACEWIRE_CPU_PROFILE", "250"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  ASSERT_EQ(cli_test::RunCommand({Runfile("tests/viewers/cpu_workload"), "0.1"}, options).exit_code,
            0);
  const std::string chrome = dir + "/trace.json";
  const std::string folded = dir + "/cpu.folded";
  const CommandResult to_chrome = cli_test::RunCommand(
      {cli_test::Tracewire(), "decode", "--format=chrome", trace, "-o", chrome});
  ASSERT_EQ(to_chrome.exit_code, 0) << to_chrome.err;
  const CommandResult to_folded = cli_test::RunCommand(
      {cli_test::Tracewire(), "decode", "--format=folded", trace, "-o", folded});
  ASSERT_EQ(to_folded.exit_code, 0) << to_folded.err;

  const json expected = ExpectFromTrace(trace);
  const int heavy = expected["function_weights"].value("TwBurnHeavy", 0);
  const int light = expected["function_weights"].value("TwBurnLight", 0);
  // 0.3 s and 0.1 s of CPU at 250 Hz: about 75 and 25 periods.
  ASSERT_GT(heavy, 30);
  ASSERT_GT(light, 10);
  const std::string expected_path = dir + "/expected.json";
  ASSERT_TRUE(cli_test::WriteFile(expected_path, expected.dump()));

  absl::StatusOr<CommandResult> run =
      consumers::RunNodeScript("cpu_profile_consumers.mjs", {chrome, folded, expected_path});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->exit_code, 0) << run->err << run->out;
  const std::vector<std::string> lines = cli_test::Lines(run->out);
  ASSERT_EQ(lines.size(), 2u) << run->out;
  const json engine = json::parse(lines[0]);
  const json speedscope = json::parse(lines[1]);
  int samples = 0;
  for (const json& thread : expected["threads"]) samples += thread["samples"].get<int>();
  EXPECT_EQ(engine["samples"], samples);
  EXPECT_EQ(engine["profiles"], expected["threads"].size());
  EXPECT_GT(engine["calls_inside_regions"], 0);
  EXPECT_EQ(speedscope["chrome_profiles"], expected["threads"].size());
  EXPECT_EQ(speedscope["folded_weight"], expected["folded_weight"]);
  EXPECT_EQ(speedscope["warnings"], 0);

  // git's formats leave the samples out; OTLP counts them on the process span.
  for (const char* format : {"event", "perf", "normal"}) {
    const CommandResult git = cli_test::RunCommand(
        {cli_test::Tracewire(), "decode", absl::StrCat("--format=", format), trace});
    ASSERT_EQ(git.exit_code, 0) << git.err;
    EXPECT_FALSE(absl::StrContains(git.out, "cpu_sample")) << format;
  }
  const CommandResult otlp =
      cli_test::RunCommand({cli_test::Tracewire(), "decode", "--format=otlp", trace});
  ASSERT_EQ(otlp.exit_code, 0) << otlp.err;
  EXPECT_TRUE(absl::StrContains(
      otlp.out, absl::StrCat("{\"key\":\"tracewire.cpu_samples\",\"value\":{\"intValue\":\"",
                             samples, "\"}}")))
      << otlp.out.substr(0, 2000);
}

// `tracewire stats` on a sampled trace of many generations: the top functions by self
// samples (3:1 within 15 %), where each region's samples went, the same serial and with
// parallel decoding (regions open across generations get the samples of later ones).
TEST(CpuProfileConsumersTest, StatsNameTheTopFunctionsInsideEachRegion) {
  const std::string trace = cli_test::NewTempDir("cpu_stats") + "/trace.twr";
  cli_test::RunOptions options;
  options.env = {
      {"TRACEWIRE", trace}, {"TRACEWIRE_CPU_PROFILE", "250"}, {"TRACEWIRE_GENERATION_MS", "20"}};
  options.unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"};
  // 0.2 s and 0.6 s of CPU: about 50 and 150 samples, so that a sample more or less at
  // each end of a burn keeps the ratio well inside its bounds.
  ASSERT_EQ(cli_test::RunCommand({Runfile("tests/viewers/cpu_workload"), "0.2"}, options).exit_code,
            0);
  const CommandResult serial =
      cli_test::RunCommand({cli_test::Tracewire(), "stats", "--jobs=1", trace});
  ASSERT_EQ(serial.exit_code, 0) << serial.err;
  const CommandResult parallel =
      cli_test::RunCommand({cli_test::Tracewire(), "stats", "--jobs=4", trace});
  ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
  EXPECT_EQ(serial.out, parallel.out);
  // The report draws the samples as flame graphs: the process's, and each top region's.
  const std::string html = cli_test::NewTempDir("cpu_report") + "/report.html";
  const CommandResult report =
      cli_test::RunCommand({cli_test::Tracewire(), "report", trace, "-o", html});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string page = cli_test::ReadFile(html);
  EXPECT_TRUE(absl::StrContains(page, "<h3>CPU samples inside cpu/heavy (flame graph, weight "));
  EXPECT_TRUE(absl::StrContains(page, "<h3>CPU samples inside cpu/light (flame graph, weight "));
  EXPECT_TRUE(absl::StrContains(page, "<h3>CPU samples (flame graph, weight "));
  EXPECT_TRUE(absl::StrContains(page, "<title>TwBurnHeavy (weight ")) << page.substr(0, 3000);
  EXPECT_TRUE(absl::StrContains(serial.out, "inside cpu/heavy (")) << serial.out;
  // "inside cpu/heavy (74 samples' weight): 97 % in TwBurnHeavy, 3 % in clock_gettime":
  // each region's first function is its burner, with almost all of the region's weight (a
  // sample that lands in the vDSO's clock_gettime, which keeps no frame pointer, is that
  // function's own).
  for (const auto& [region, burner] :
       {std::pair<std::string, std::string>{"cpu/heavy", "TwBurnHeavy"},
        {"cpu/light", "TwBurnLight"}}) {
    double share = 0;
    char first[256] = {};
    for (const std::string& line : cli_test::Lines(serial.out)) {
      const std::string prefix = absl::StrCat("inside ", region, " (");
      if (!absl::StartsWith(line, prefix)) continue;
      const size_t colon = line.find("): ");
      ASSERT_NE(colon, std::string::npos) << line;
      ASSERT_EQ(sscanf(line.c_str() + colon + 3, "%lf %% in %255[^,]", &share, first), 2) << line;
    }
    EXPECT_EQ(std::string(first), burner) << serial.out;
    EXPECT_GE(share, 85) << serial.out;
  }
  // "  77.9%   77.9%  TwBurnHeavy" in the table by self samples.
  std::map<std::string, double> self_percent;
  bool in_table = false;
  for (const std::string& line : cli_test::Lines(serial.out)) {
    if (line == "top functions by self samples:") in_table = true;
    if (!in_table || line.empty()) continue;
    double self = 0, total = 0;
    char name[256] = {};
    if (sscanf(line.c_str(), " %lf%% %lf%% %255s", &self, &total, name) == 3) {
      self_percent[name] = self;
    }
    if (line == "top functions by total samples:") break;
  }
  ASSERT_GT(self_percent["TwBurnLight"], 0) << serial.out;
  const double ratio = self_percent["TwBurnHeavy"] / self_percent["TwBurnLight"];
  EXPECT_GE(ratio, 3 * 0.85) << serial.out;
  EXPECT_LE(ratio, 3 * 1.15) << serial.out;
}

}  // namespace
}  // namespace tracewire::viewers_test
