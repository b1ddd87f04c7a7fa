// `tracewire query` on real traces (the demo, a traced process tree, the benchmarks'
// synthetic trace, the thread-pool example's tasks and gauges, a CPU-profiled workload): its
// tables agree with
// `tracewire stats`; its formats, statements from
// stdin, percentile() and views; hostile SQL that must not reach the file system; --db
// files; --salvage on a damaged trace; skipped files; usage errors.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/query/query_support.h"

namespace tracewire::query_test {
namespace {

using cli_test::CommandResult;
using cli_test::NewTempDir;
using cli_test::RunCommand;
using cli_test::Runfile;
using cli_test::Tracewire;
using ::testing::HasSubstr;

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

int64_t Int(const std::string& text) {
  int64_t value = 0;
  EXPECT_TRUE(absl::SimpleAtoi(text, &value)) << "'" << text << "'";
  return value;
}

// A process tree of //tests/testtool (three levels of traced children) in one file.
std::string TreeTraceFile() {
  const std::string file = NewTempDir("query_tree") + "/tree.twr";
  const std::string testtool = Runfile("tests/testtool/testtool");
  const CommandResult r = RunCommand({testtool, "trace2", "004child", testtool, "trace2",
                                      "004child", testtool, "trace2", "001return", "0"},
                                     {.env = {{"TRACEWIRE", file}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return file;
}

// The benchmarks' synthetic trace: `threads` threads, regions with data inside.
std::string SyntheticTrace(const std::string& name, int events, int per_generation, int threads) {
  const std::string file = NewTempDir(name) + "/synthetic.twr";
  const CommandResult r =
      RunCommand({Runfile("tests/bench/make_bench_trace"), absl::StrCat("--events=", events),
                  absl::StrCat("--events_per_generation=", per_generation),
                  absl::StrCat("--threads=", threads), "--bursty", file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return file;
}

// What `tracewire stats` prints of a trace: processes, events by kind, and every region
// (name -> "count total_s self_s").
struct StatsReport {
  int64_t processes = 0;
  std::map<std::string, int64_t> by_kind;
  std::map<std::string, std::string> regions;
};

StatsReport RunStats(const std::string& trace) {
  const CommandResult r = RunCommand({Tracewire(), "stats", "--top=1000000", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  StatsReport report;
  std::string section;
  const std::regex kind(R"(^  (\S+) +(\d+)$)");
  const std::regex region(R"(^ +(-?[0-9.]+) +(-?[0-9.]+) +(\d+)  (.+)$)");
  for (const std::string& line : cli_test::Lines(r.out)) {
    std::smatch m;
    if (absl::StartsWith(line, "processes: ")) report.processes = Int(line.substr(11));
    if (!line.empty() && line[0] != ' ') section = line;
    if (section == "events by kind:" && std::regex_match(line, m, kind)) {
      report.by_kind[m[1]] = Int(m[2]);
    }
    if (section == "top regions by total time:" && std::regex_match(line, m, region)) {
      report.regions[m[4]] = absl::StrCat(m[3].str(), " ", m[1].str(), " ", m[2].str());
    }
  }
  return report;
}

class QueryMatchesStats : public ::testing::TestWithParam<std::string> {};

TEST_P(QueryMatchesStats, CountsTotalsAndSelfTimes) {
  std::string trace;
  if (GetParam() == "demo_dir") trace = DemoTraceDir("query_stats_demo");
  if (GetParam() == "tree_file") trace = TreeTraceFile();
  if (GetParam() == "synthetic") trace = SyntheticTrace("query_stats_synth", 200000, 50000, 4);
  const StatsReport stats = RunStats(trace);
  if (GetParam() != "tree_file") ASSERT_FALSE(stats.regions.empty());
  const auto kind = [&](const char* name) {
    auto it = stats.by_kind.find(name);
    return it == stats.by_kind.end() ? int64_t{0} : it->second;
  };

  // Every region of these traces ends with its region_leave, so every slice counts as
  // stats counts it.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM slice WHERE kind = 'region' AND "
                   "end_cause <> 'end'"),
            (Rows{{"0"}}));
  const Rows counts = Select(
      {trace},
      "SELECT (SELECT count(*) FROM process), (SELECT count(*) FROM slice WHERE kind = "
      "'region'), (SELECT count(*) FROM data WHERE json_value IS NULL), (SELECT count(*) FROM "
      "data WHERE json_value IS NOT NULL), (SELECT count(*) FROM error), (SELECT count(*) FROM "
      "def_param), (SELECT count(*) FROM child), (SELECT count(*) FROM counter)");
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(Int(counts[0][0]), stats.processes);
  EXPECT_EQ(Int(counts[0][1]), kind("region_enter"));
  EXPECT_EQ(Int(counts[0][2]), kind("data"));
  EXPECT_EQ(Int(counts[0][3]), kind("data_json"));
  EXPECT_EQ(Int(counts[0][4]), kind("error"));
  EXPECT_EQ(Int(counts[0][5]), kind("def_param"));
  EXPECT_EQ(Int(counts[0][6]), kind("child_start"));
  EXPECT_EQ(Int(counts[0][7]),
            kind("timer") + kind("th_timer") + kind("counter") + kind("th_counter"));

  // region_stats: count, total and self time of every region, as stats prints them.
  std::map<std::string, std::string> regions;
  for (const std::vector<std::string>& row :
       Select({trace},
              "SELECT category || '/' || name, count, total_dur, self_dur FROM "
              "region_stats")) {
    ASSERT_EQ(row.size(), 4u);
    regions[row[0]] = absl::StrFormat("%s %.6f %.6f", row[1], Int(row[2]) / 1e9, Int(row[3]) / 1e9);
  }
  EXPECT_EQ(regions, stats.regions);
}

INSTANTIATE_TEST_SUITE_P(Traces, QueryMatchesStats,
                         ::testing::Values("demo_dir", "tree_file", "synthetic"));

// The thread-pool example (examples/threadpool) with `requests` requests, into a new
// directory `name`: tasks that cross three threads, and gauges.
std::string ThreadPoolTraceDir(const std::string& name, int requests) {
  const std::string dir = NewTempDir(name);
  const CommandResult r =
      RunCommand({Runfile("examples/threadpool/threadpool"), absl::StrCat(requests)},
                 {.env = {{"TRACEWIRE", dir}}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

// The nearest-rank percentile `p` of sorted `values`, as `stats` computes it.
int64_t NearestRank(const std::vector<int64_t>& sorted, int p) {
  const size_t rank = (sorted.size() * static_cast<size_t>(p) + 99) / 100;
  return sorted[std::max<size_t>(rank, 1) - 1];
}

// The "tasks by name" and "gauges" lines of `tracewire stats`, by category/name.
std::map<std::string, std::string> StatsTaskAndGaugeLines(const std::string& trace) {
  const CommandResult r = RunCommand({Tracewire(), "stats", "--top=1000000", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> lines;
  std::string section;
  const std::regex row(R"(^ +(-?[0-9][-0-9. ]*[0-9])  (\S+)( \(.*\))?$)");
  for (const std::string& line : cli_test::Lines(r.out)) {
    std::smatch m;
    if (!line.empty() && line[0] != ' ') section = line.substr(0, line.find(' '));
    if ((section == "tasks" || section == "gauges:") && std::regex_match(line, m, row)) {
      lines[absl::StrCat(section, " ", m[2].str())] =
          absl::StrCat(std::regex_replace(m[1].str(), std::regex(" +"), " "), m[3].str());
    }
  }
  return lines;
}

TEST(QueryTest, TasksAndGaugesMatchStats) {
  constexpr int kRequests = 400;
  const std::string trace = ThreadPoolTraceDir("query_tasks", kRequests);
  const std::map<std::string, std::string> stats = StatsTaskAndGaugeLines(trace);
  ASSERT_EQ(stats.size(), 4u) << "one task name and three gauges";

  // Tasks by name: count, total, p50/p95/max (nearest rank), threads (mean, max), from the
  // rows of the ended tasks.
  std::map<std::string, std::string> query;
  std::map<std::string, std::vector<int64_t>> durations;
  std::map<std::string, std::pair<int64_t, int64_t>> threads;  // sum, max
  for (const std::vector<std::string>& row :
       Select({trace},
              "SELECT category || '/' || name, dur, threads FROM task "
              "WHERE end_cause = 'end'")) {
    durations[row[0]].push_back(Int(row[1]));
    threads[row[0]].first += Int(row[2]);
    threads[row[0]].second = std::max(threads[row[0]].second, Int(row[2]));
  }
  for (auto& [name, d] : durations) {
    std::sort(d.begin(), d.end());
    int64_t total = 0;
    for (int64_t ns : d) total += ns;
    query[absl::StrCat("tasks ", name)] =
        absl::StrFormat("%d %.6f %.6f %.6f %.6f %.2f %d", d.size(), total / 1e9,
                        NearestRank(d, 50) / 1e9, NearestRank(d, 95) / 1e9, d.back() / 1e9,
                        static_cast<double>(threads[name].first) / static_cast<double>(d.size()),
                        threads[name].second);
  }
  // Gauges: samples, min, max, last (unit), over the counter rows of the gauge tracks.
  for (const std::vector<std::string>& row :
       Select({trace},
              "SELECT t.category || '/' || t.name, count(*), CAST(min(c.value) AS INTEGER), "
              "CAST(max(c.value) AS INTEGER), (SELECT CAST(value AS INTEGER) FROM counter l JOIN "
              "counter_track lt ON lt.id = l.track_id WHERE lt.category = t.category AND lt.name = "
              "t.name ORDER BY l.ts DESC, l.id DESC LIMIT 1), coalesce(' (' || t.unit || ')', '') "
              "FROM counter c JOIN counter_track t ON t.id = c.track_id WHERE t.type = 'gauge' "
              "GROUP BY t.category, t.name")) {
    query[absl::StrCat("gauges: ", row[0])] =
        absl::StrCat(row[1], " ", row[2], " ", row[3], " ", row[4], row[5]);
  }
  EXPECT_EQ(query, stats);
  EXPECT_EQ(Select({trace}, "SELECT count(*), sum(threads >= 3) FROM task"),
            (Rows{{absl::StrCat(kRequests), absl::StrCat(kRequests)}}));
}

TEST(QueryTest, TasksSegmentsAndTheirRegions) {
  const std::string trace = ThreadPoolTraceDir("query_task_segments", 200);
  // Every segment names its task; a task's segments are its adopts, on `threads` threads,
  // begun within the task's time (a thread may release a task after ending it).
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM task t JOIN (SELECT task, count(*) AS n, "
                   "count(DISTINCT utid) AS threads, min(ts) AS first, max(ts) AS last "
                   "FROM task_segment GROUP BY task) s ON s.task = t.id WHERE s.n = t.segments "
                   "AND s.threads = t.threads AND s.first >= t.ts AND s.last <= t.ts + t.dur "
                   "AND t.begin_utid IS NOT NULL AND t.end_utid IS NOT NULL"),
            (Rows{{"200"}}));
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) = count(task), count(*) >= 600, "
                   "sum(s.task_id <> t.task_id OR s.upid <> t.upid) FROM task_segment s "
                   "LEFT JOIN task t ON t.id = s.task"),
            (Rows{{"1", "1", "0"}}));
  // A region recorded while its thread worked for a task lies inside one of that task's
  // segments on the same thread.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) > 0, sum(NOT EXISTS (SELECT 1 FROM task_segment g "
                   "WHERE g.upid = r.upid AND g.task_id = r.task_id AND g.utid = r.utid AND "
                   "r.ts >= g.ts AND r.ts <= g.ts + g.dur)) FROM slice r "
                   "WHERE r.task_id IS NOT NULL"),
            (Rows{{"1", "0"}}));
  // So does a data event recorded for a task.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) > 0, sum(NOT EXISTS (SELECT 1 FROM task_segment g "
                   "WHERE g.upid = d.upid AND g.task_id = d.task_id AND g.utid = d.utid AND "
                   "d.ts >= g.ts AND d.ts <= g.ts + g.dur)) FROM data d "
                   "WHERE d.task_id IS NOT NULL"),
            (Rows{{"1", "0"}}));
  // Tasks are not slices; regions outside any task have no task_id.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM slice WHERE kind NOT IN ('region', 'thread', 'child', "
                   "'exec') OR (kind <> 'region' AND task_id IS NOT NULL)"),
            (Rows{{"0"}}));
}

// The 3:1 CPU workload of tests/viewers (TwBurnHeavy in region cpu/heavy on thread "heavy",
// TwBurnLight in cpu/light on "light"), sampled at 250 Hz.
std::string CpuProfileTrace(const std::string& name) {
  const std::string file = NewTempDir(name) + "/cpu.twr";
  const CommandResult r =
      RunCommand({Runfile("tests/viewers/cpu_workload"), "0.1"},
                 {.env = {{"TRACEWIRE", file}, {"TRACEWIRE_CPU_PROFILE", "250"}},
                  .unset_env = {"TRACEWIRE_PARENT_SID", "TRACEWIRE_PARENT_NAME"}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return file;
}

TEST(QueryTest, SampleStacksAreTheFoldedStacks) {
  const std::string trace = CpuProfileTrace("query_samples_folded");
  // Each sample's stack, read back from stack_frame (outermost first, each frame named as
  // the folded output names it), summed by stack: `decode --format=folded`'s lines.
  const std::string sql =
      "WITH RECURSIVE named(id, parent_id, name) AS (SELECT id, parent_id, CASE "
      "WHEN function IS NOT NULL THEN replace(replace(replace(function, ';', '_'), char(10), "
      "'_'), char(13), '_') "
      "WHEN module IS NOT NULL THEN replace(replace(module, rtrim(module, replace(module, '/', "
      "'')), ''), ';', '_') || printf('+0x%x', module_offset) "
      "ELSE printf('0x%x', pc) END FROM stack_frame), "
      "path(sample, next, line) AS (SELECT s.id, f.parent_id, f.name FROM sample s JOIN named f "
      "ON f.id = s.stack_id UNION ALL SELECT p.sample, f.parent_id, f.name || ';' || p.line "
      "FROM path p JOIN named f ON f.id = p.next) "
      "SELECT p.line || ' ' || sum(s.weight) FROM path p JOIN sample s ON s.id = p.sample "
      "WHERE p.next IS NULL GROUP BY p.line ORDER BY p.line";
  std::vector<std::string> lines;
  for (const std::vector<std::string>& row : Select({trace}, sql)) lines.push_back(row[0]);
  const CommandResult folded = RunCommand({Tracewire(), "decode", "--format=folded", trace});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_EQ(lines, cli_test::Lines(folded.out));
  EXPECT_GE(lines.size(), 2u);
  // Frames form a tree: a frame is one deeper than its caller.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM stack_frame f LEFT JOIN stack_frame p ON p.id = "
                   "f.parent_id WHERE (p.id IS NULL) <> (f.depth = 0) OR f.depth <> "
                   "coalesce(p.depth + 1, 0)"),
            (Rows{{"0"}}));
}

TEST(QueryTest, SamplesMatchStatsAndFallInTheirRegions) {
  const std::string trace = CpuProfileTrace("query_samples_stats");
  const CommandResult stats = RunCommand({Tracewire(), "stats", trace});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(stats.out, m, std::regex(R"(CPU samples: weight (\d+))")))
      << stats.out;
  EXPECT_EQ(Select({trace}, "SELECT sum(weight) FROM sample"), (Rows{{m[1].str()}}));
  // The weight inside each region, as stats attributes it (the region open on the thread).
  for (const std::string region : {"heavy", "light"}) {
    ASSERT_TRUE(std::regex_search(
        stats.out, m,
        std::regex(absl::StrCat(R"(inside cpu/)", region, R"( \((\d+) samples' weight\))"))))
        << stats.out;
    EXPECT_EQ(Select({trace}, absl::StrCat("SELECT sum(s.weight) FROM sample s JOIN slice r ON "
                                           "r.id = s.slice_id WHERE r.category = 'cpu' AND "
                                           "r.name = '",
                                           region, "'")),
              (Rows{{m[1].str()}}))
        << region;
  }
  // A sample's region is open on its own thread when it was taken.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM sample s JOIN slice r ON r.id = s.slice_id WHERE "
                   "r.utid <> s.utid OR s.ts < r.ts OR s.ts > r.ts + r.dur"),
            (Rows{{"0"}}));
  // The burning functions' self and total shares of the weight, as stats prints them: self
  // counts the samples they are the innermost frame of, total those whose stack holds them.
  const std::string all = Select({trace}, "SELECT sum(weight) FROM sample")[0][0];
  const Rows shares = Select(
      {trace},
      "WITH RECURSIVE walk(sample, weight, frame) AS (SELECT id, weight, stack_id FROM sample "
      "WHERE stack_id IS NOT NULL UNION ALL SELECT w.sample, w.weight, f.parent_id FROM walk w "
      "JOIN stack_frame f ON f.id = w.frame WHERE f.parent_id IS NOT NULL), "
      "total AS (SELECT function, sum(weight) AS weight FROM (SELECT DISTINCT w.sample, "
      "w.weight, f.function FROM walk w JOIN stack_frame f ON f.id = w.frame) GROUP BY "
      "function), "
      "self AS (SELECT f.function, sum(s.weight) AS weight FROM sample s JOIN stack_frame f ON "
      "f.id = s.stack_id GROUP BY f.function) "
      "SELECT t.function, coalesce(s.weight, 0), t.weight FROM total t LEFT JOIN self s "
      "USING (function) WHERE t.function LIKE 'TwBurn%' ORDER BY t.function");
  ASSERT_EQ(shares.size(), 2u);
  std::map<std::string, std::string> stats_lines;  // the self section's burner lines
  bool in_self = false;
  for (const std::string& line : cli_test::Lines(stats.out)) {
    if (absl::StartsWith(line, "top functions by"))
      in_self = line == "top functions by self samples:";
    if (in_self && absl::StrContains(line, "  TwBurn")) {
      stats_lines[line.substr(line.rfind(' ') + 1)] = line;
    }
  }
  for (const std::vector<std::string>& row : shares) {
    EXPECT_EQ(absl::StrFormat("  %6.1f%% %6.1f%%  %s", 100.0 * Int(row[1]) / Int(all),
                              100.0 * Int(row[2]) / Int(all), row[0]),
              stats_lines[row[0]]);
  }
  // Each burner's samples fall in its own region; heavy burns about three times light (the
  // bounds are loose: a sampled 0.1 s of CPU time has few samples).
  const Rows by_function =
      Select({trace},
             "SELECT r.name, f.function, sum(s.weight) FROM sample s JOIN slice r ON r.id = "
             "s.slice_id JOIN stack_frame f ON f.id = s.stack_id WHERE f.function LIKE 'TwBurn%' "
             "GROUP BY r.name, f.function ORDER BY r.name");
  ASSERT_EQ(by_function.size(), 2u);
  EXPECT_EQ(by_function[0][0], "heavy");
  EXPECT_EQ(by_function[0][1], "TwBurnHeavy");
  EXPECT_EQ(by_function[1][0], "light");
  EXPECT_EQ(by_function[1][1], "TwBurnLight");
  const double ratio = static_cast<double>(Int(by_function[0][2])) / Int(by_function[1][2]);
  EXPECT_GE(ratio, 2.0);
  EXPECT_LE(ratio, 4.5);
}

TEST(QueryTest, SlicesNestWithParentsDepthsAndSelfTimes) {
  const std::string trace = SyntheticTrace("query_nesting", 100000, 25000, 3);
  // A region's parent is the enclosing region of its thread, one level up, around it.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM slice c JOIN slice p ON p.id = c.parent_id WHERE "
                   "c.depth <> p.depth + 1 OR c.utid <> p.utid OR c.ts < p.ts OR "
                   "c.ts + c.dur > p.ts + p.dur"),
            (Rows{{"0"}}));
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM slice WHERE kind = 'region' AND "
                   "(parent_id IS NULL) <> (depth = 0)"),
            (Rows{{"0"}}));
  // Self time: its duration minus its direct children's.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM slice p LEFT JOIN (SELECT parent_id, sum(dur) "
                   "AS children FROM slice GROUP BY parent_id) c ON c.parent_id = p.id "
                   "WHERE p.kind = 'region' AND p.self_dur <> p.dur - "
                   "coalesce(c.children, 0)"),
            (Rows{{"0"}}));
  // Data rows point at the region they were recorded in.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM data d JOIN slice s ON s.id = d.slice_id "
                   "WHERE d.ts < s.ts OR d.ts > s.ts + s.dur OR d.utid <> s.utid"),
            (Rows{{"0"}}));
  EXPECT_EQ(Select({trace}, "SELECT count(*) > 0, count(*) = count(slice_id) FROM data"),
            (Rows{{"1", "1"}}));
  // Each thread: one lifetime slice, the times of its thread row.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM thread t JOIN slice s ON s.utid = t.utid AND "
                   "s.kind = 'thread' WHERE s.ts = t.start_ts AND s.ts + s.dur = "
                   "t.end_ts"),
            Select({trace}, "SELECT count(*) FROM thread"));
}

TEST(QueryTest, ProcessTreeChildrenAndFlows) {
  const std::string trace = TreeTraceFile();
  // Three processes, each but the root a child of the one before (its sid's parent).
  EXPECT_EQ(Select({trace},
                   "SELECT count(*), count(parent_upid), sum(pid > 0), sum(exit_code "
                   "= 0), sum(start_ts <= end_ts), sum(length(host) > 0) FROM process"),
            (Rows{{"3", "2", "3", "3", "3", "3"}}));
  EXPECT_EQ(Select({trace},
                   "SELECT count(*) FROM process c JOIN process p ON p.upid = "
                   "c.parent_upid WHERE c.sid = p.sid || '/' || substr(c.sid, "
                   "length(p.sid) + 2) AND instr(substr(c.sid, length(p.sid) + 2), "
                   "'/') = 0"),
            (Rows{{"2"}}));
  // Each child row names its process, and a flow goes from its slice to the child
  // process's main thread.
  EXPECT_EQ(Select({trace},
                   "SELECT count(*), sum(c.child_upid = p.upid AND p.parent_upid = "
                   "c.upid AND p.pid = c.pid AND c.exit_code = 0 AND s.kind = "
                   "'thread' AND t.is_main_thread AND t.upid = c.child_upid) FROM child "
                   "c JOIN process p ON p.upid = c.child_upid JOIN flow f ON "
                   "f.slice_out = c.slice_id JOIN slice s ON s.id = f.slice_in JOIN "
                   "thread t ON t.utid = s.utid"),
            (Rows{{"2", "2"}}));
  EXPECT_EQ(Select({trace}, "SELECT count(*) FROM flow"), (Rows{{"2"}}));
}

TEST(QueryTest, ParallelDecodingLoadsTheSameRows) {
  const std::string trace = SyntheticTrace("query_jobs", 120000, 10000, 3);
  const std::string dir = DemoTraceDir("query_jobs_dir");
  const std::string sql =
      "SELECT id, ts, dur, utid, kind, category, name, depth, parent_id, self_dur FROM slice "
      "ORDER BY id; SELECT * FROM data ORDER BY id; SELECT * FROM process ORDER BY upid";
  for (const std::string& input : {trace, dir}) {
    const CommandResult serial = Query({input, "--jobs=1", "-c", sql});
    ASSERT_EQ(serial.exit_code, 0) << serial.err;
    const CommandResult parallel = Query({input, "--jobs=3", "-c", sql});
    ASSERT_EQ(parallel.exit_code, 0) << parallel.err;
    EXPECT_GT(serial.out.size(), 1000u);
    EXPECT_TRUE(serial.out == parallel.out) << input;
  }
}

TEST(QueryTest, SeveralInputsLoadIntoOneDatabase) {
  const std::string demo = DemoTraceDir("query_two_inputs");
  const std::string tree = TreeTraceFile();
  EXPECT_EQ(Select({demo, tree}, "SELECT count(*), count(DISTINCT sid) FROM process"),
            (Rows{{"5", "5"}}));
  // A trace on stdin, with another input.
  const CommandResult from_stdin =
      Query({demo, "-", "-c", "SELECT count(*) FROM process"}, {.stdin_path = tree});
  EXPECT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, "count(*)\n5\n");
}

TEST(QueryTest, Formats) {
  const std::string demo = DemoTraceDir("query_formats");
  const std::string sql = "SELECT 1 AS a, 'x,\"y\"' AS b, NULL AS c, 2.5 AS d";
  const auto run = [&](const std::string& format, const std::vector<std::string>& statements) {
    std::vector<std::string> argv = {Tracewire(), "query", "--format=" + format, demo};
    for (const std::string& s : statements) argv.insert(argv.end(), {"-c", s});
    const CommandResult r = RunCommand(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  EXPECT_EQ(run("csv", {sql}), "a,b,c,d\n1,\"x,\"\"y\"\"\",,2.5\n");
  EXPECT_EQ(run("tsv", {sql}), "a\tb\tc\td\n1\tx,\"y\"\t\t2.5\n");
  EXPECT_EQ(run("json", {sql}), "[\n{\"a\":1,\"b\":\"x,\\\"y\\\"\",\"c\":null,\"d\":2.5}\n]\n");
  EXPECT_EQ(run("table", {sql}),
            "a  b      c       d\n-  -----  ----  ---\n1  x,\"y\"  NULL  2.5\n");
  // Numbers are right-aligned; each statement prints its own result.
  EXPECT_EQ(run("table", {"SELECT 5 AS n UNION ALL SELECT 1234 ORDER BY 1; SELECT 'z' AS t"}),
            "   n\n----\n   5\n1234\n\nt\n-\nz\n");
  // Text that is not UTF-8 stays valid JSON; an empty result is an empty array.
  EXPECT_EQ(run("json", {"SELECT CAST(x'41ff0a' AS TEXT) AS t", "SELECT 1 WHERE 0"}),
            "[\n{\"t\":\"A\xef\xbf\xbd\\n\"}\n]\n[]\n");
  // Statements without result columns print nothing.
  EXPECT_EQ(run("tsv", {"CREATE TABLE t (x); INSERT INTO t VALUES (7)", "SELECT x FROM t"}),
            "x\n7\n");
}

TEST(QueryTest, StatementsFromStdin) {
  const std::string demo = DemoTraceDir("query_stdin");
  const std::string dir = NewTempDir("query_stdin_sql");
  const std::string script = dir + "/report.sql";
  ASSERT_TRUE(cli_test::WriteFile(script,
                                  "-- a report\nSELECT count(*) AS processes\n  FROM process;\n"
                                  ".tables\nSELECT name FROM process ORDER BY upid;\n"));
  const CommandResult r = Query({demo}, {.stdin_path = script});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("processes\n2\n"));
  EXPECT_THAT(r.out, HasSubstr("slice\ttable\n"));
  EXPECT_THAT(r.out, HasSubstr("region_stats\tview\n"));
  EXPECT_THAT(r.out, HasSubstr("name\nstatus\nchild\n"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("query>")));  // no prompt off a terminal

  // Off a terminal the first error ends the run, naming the statement.
  ASSERT_TRUE(
      cli_test::WriteFile(script, "SELECT 1 AS a;\nSELECT nope FROM process;\nSELECT 2 AS b;\n"));
  const CommandResult bad = Query({demo}, {.stdin_path = script});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err,
              HasSubstr("SQL error: no such column: nope (in: SELECT nope FROM process;)"));
  EXPECT_THAT(bad.out, HasSubstr("a\n1\n"));
  EXPECT_THAT(bad.out, ::testing::Not(HasSubstr("b\n2")));
}

TEST(QueryTest, InteractiveSessionOnATerminal) {
  // script(1) (util-linux, in every Debian) runs the command on a pseudo-terminal.
  const std::string demo = DemoTraceDir("query_tty");
  const std::string input = NewTempDir("query_tty_in") + "/input";
  ASSERT_TRUE(cli_test::WriteFile(
      input, "SELECT count(*) AS n FROM process;\nSELECT nope;\nSELECT\n 42 AS answer;\n.quit\n"));
  const CommandResult r =
      cli_test::Shell(absl::StrCat("script -qec \"'", Tracewire(), "' query '", demo,
                                   "'\" /dev/null < '", input, "' | tr -d '\\r'"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A prompt per statement, a continuation prompt, results in tables, and an error that
  // does not end the session.
  EXPECT_THAT(r.out, HasSubstr("query> n\n-\n2\n"));
  EXPECT_THAT(r.out, HasSubstr("query> error: no such column: nope (in: SELECT nope;)\n"));
  EXPECT_THAT(r.out, HasSubstr("query>   ...> \nanswer\n------\n    42\n"));
}

TEST(QueryTest, PercentileAggregate) {
  const std::string demo = DemoTraceDir("query_percentile");
  const std::string values =
      "(SELECT column1 AS v FROM (VALUES (7), (1), (10), (NULL), (3), (2), (9), (4), (8), (6), "
      "(5)))";
  EXPECT_EQ(Select({demo}, absl::StrCat("SELECT percentile(v, 95), percentile(v, 50), "
                                        "percentile(v, 0), percentile(v, 100) FROM ",
                                        values)),
            (Rows{{"9.55", "5.5", "1", "10"}}));
  EXPECT_EQ(Select({demo}, "SELECT percentile(dur, 50) FROM slice WHERE 0"), (Rows{{""}}));
  const CommandResult bad = Query({demo, "-c", "SELECT percentile(dur, 101) FROM slice"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("p must be a number from 0 to 100"));

  // The views' percentiles are percentile()'s, rounded to whole nanoseconds.
  const std::string trace = SyntheticTrace("query_views", 100000, 25000, 2);
  EXPECT_EQ(Select({trace},
                   "SELECT count(*), sum(abs(r.p95_dur - q.p95) > 1 OR abs(r.p50_dur - q.p50) > "
                   "1 OR r.max_dur <> q.mx) FROM region_stats r JOIN (SELECT category, name, "
                   "percentile(dur, 95) AS p95, percentile(dur, 50) AS p50, max(dur) AS mx FROM "
                   "slice WHERE kind = 'region' GROUP BY 1, 2) q USING (category, name)"),
            Select({trace},
                   "SELECT count(DISTINCT category || '/' || name), 0 FROM slice "
                   "WHERE kind = 'region'"));
  // The session's views (percentile()) and the database's own (plain SQL, what other
  // clients see) agree row for row.
  const std::string demo_dir = DemoTraceDir("query_views_demo");
  for (const std::string view : {"region_stats", "command_stats", "child_stats"}) {
    EXPECT_EQ(
        Select({trace, demo_dir}, absl::StrCat("SELECT (SELECT count(*) > 0 FROM temp.", view,
                                               "), (SELECT count(*) FROM (SELECT * FROM temp.",
                                               view, " EXCEPT SELECT * FROM main.", view,
                                               ")), (SELECT count(*) FROM (SELECT * FROM main.",
                                               view, " EXCEPT SELECT * FROM temp.", view, "))")),
        (Rows{{"1", "0", "0"}}))
        << view;
  }
}

TEST(QueryTest, HostileSqlCannotReachTheFileSystem) {
  const std::string demo = DemoTraceDir("query_hostile");
  const std::string dir = NewTempDir("query_hostile_target");
  const std::string db = NewTempDir("query_hostile_db") + "/t.sqlite";
  ASSERT_EQ(Query({demo, "--db", db, "-c", "SELECT 1"}).exit_code, 0);
  const std::vector<std::string> hostile = {
      absl::StrCat("ATTACH DATABASE '", dir, "/attached.db' AS a"),
      absl::StrCat("ATTACH '", dir, "/attached.db' AS a; CREATE TABLE a.t (x)"),
      absl::StrCat("VACUUM INTO '", dir, "/vacuumed.db'"),
      absl::StrCat("SELECT load_extension('", dir, "/ext.so')"),
      absl::StrCat("PRAGMA temp_store_directory = '", dir, "'"),
      "PRAGMA writable_schema = ON",
      "PRAGMA trusted_schema = ON",
      "DETACH DATABASE main",
  };
  for (const std::string& sql : hostile) {
    const CommandResult r = Query({demo, "-c", sql});
    EXPECT_EQ(r.exit_code, 2) << sql << "\n" << r.out;
    EXPECT_THAT(r.err, HasSubstr("SQL error")) << sql;
    // The same on a --db database: the only file it touches is its own.
    const std::string other = NewTempDir("query_hostile_db2") + "/t.sqlite";
    const CommandResult on_file = Query({demo, "--db", other, "-c", sql});
    EXPECT_EQ(on_file.exit_code, 2) << sql;
  }
  EXPECT_EQ(cli_test::Shell(absl::StrCat("ls -A '", dir, "'")).out, "");
  // Writing to the schema tables is refused (defensive mode).
  EXPECT_EQ(Query({demo, "-c", "UPDATE sqlite_schema SET sql = 'x'"}).exit_code, 2);
  // Ordinary SQL works, tables of one's own included.
  EXPECT_EQ(Select({demo},
                   "CREATE TEMP TABLE t AS SELECT upid FROM process; SELECT count(*) "
                   "FROM t"),
            (Rows{{"2"}}));
}

TEST(QueryTest, DbFileOpensInSqliteClients) {
  const std::string demo = DemoTraceDir("query_db");
  const std::string trace = SyntheticTrace("query_db_synth", 60000, 20000, 2);
  const std::string db = NewTempDir("query_db_out") + "/fleet.sqlite";
  // Without -c, --db only writes the database (stdin is not read).
  const CommandResult r = Query({demo, trace, "--db", db});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_TRUE(Exists(db));
  // An existing file is never overwritten.
  const std::string before = cli_test::ReadFile(db);
  const CommandResult again = Query({demo, "--db", db});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_THAT(again.err, HasSubstr("already exists"));
  EXPECT_EQ(cli_test::ReadFile(db), before);

  const std::string sql =
      "SELECT category, name, count, total_dur, self_dur, p50_dur, p95_dur, max_dur FROM "
      "region_stats ORDER BY category, name";
  const CommandResult ours = Query({demo, trace, "-c", sql});
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const Rows expected = ParseTsv(ours.out);
  ASSERT_GT(expected.size(), 3u);

  // Debian's sqlite3 CLI: the views are plain SQL.
  const CommandResult cli =
      RunCommand({"sqlite3", "-batch", "-header", "-separator", "\t", db, sql});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(ParseTsv(cli.out), expected);
  const CommandResult counts = RunCommand(
      {"sqlite3", "-batch", db, "SELECT count(*) FROM slice; SELECT count(*) FROM process;"});
  EXPECT_EQ(counts.out,
            absl::StrCat(Select({demo, trace}, "SELECT count(*) FROM slice")[0][0], "\n3\n"));

  // Python's sqlite3 module.
  const std::string script = NewTempDir("query_db_py") + "/read.py";
  ASSERT_TRUE(
      cli_test::WriteFile(script,
                          "import sqlite3, sys\n"
                          "db = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)\n"
                          "cur = db.execute(sys.argv[2])\n"
                          "print('\\t'.join(d[0] for d in cur.description))\n"
                          "for row in cur:\n"
                          "    print('\\t'.join(str(v) for v in row))\n"));
  const CommandResult py = RunCommand({"python3", script, db, sql});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  EXPECT_EQ(ParseTsv(py.out), expected);
  // ... and it sees the schema tracewire documents (docs/cli.md, checked against the
  // command by query_fleet_test): every table and view with its columns, in order.
  const std::string schema_sql =
      "SELECT m.name, group_concat(p.name, ',') FROM sqlite_schema m JOIN "
      "pragma_table_info(m.name) p WHERE m.type IN ('table', 'view') GROUP BY m.name ORDER BY "
      "m.name";
  const CommandResult py_schema = RunCommand({"python3", script, db, schema_sql});
  ASSERT_EQ(py_schema.exit_code, 0) << py_schema.err;
  Rows schema = ParseTsv(py_schema.out);
  schema.erase(schema.begin());
  EXPECT_EQ(schema, Select({demo}, schema_sql));
  EXPECT_EQ(schema.size(), 27u);  // 16 tables, 11 views
}

TEST(QueryTest, SalvageLoadsTheRowsBeforeTheDamage) {
  const std::string trace = SyntheticTrace("query_salvage", 60000, 10000, 1);
  const std::string full_sql =
      "SELECT ts, category, key, int_value, string_value FROM data ORDER BY ts, id";
  const Rows full = Select({trace}, full_sql);
  ASSERT_GT(full.size(), 10000u);
  // Damage the middle of the file.
  std::string bytes = cli_test::ReadFile(trace);
  ASSERT_GT(bytes.size(), 1000u);
  const size_t at = bytes.size() * 3 / 5;
  for (size_t i = at; i < at + 64; ++i) bytes[i] = '\xff';
  const std::string damaged = NewTempDir("query_salvage_damaged") + "/damaged.twr";
  ASSERT_TRUE(cli_test::WriteFile(damaged, bytes));

  const CommandResult strict = Query({damaged, "-c", "SELECT count(*) FROM data"});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_THAT(strict.err, HasSubstr("invalid trace"));
  EXPECT_EQ(strict.out, "");
  // A --db file of a failed load is not left behind.
  const std::string db = NewTempDir("query_salvage_db") + "/t.sqlite";
  EXPECT_EQ(Query({damaged, "--db", db}).exit_code, 1);
  EXPECT_FALSE(Exists(db));
  EXPECT_EQ(Query({"--salvage", damaged, "--db", db}).exit_code, 1);
  EXPECT_TRUE(Exists(db));

  const CommandResult salvaged = Query({"--salvage", damaged, "-c", full_sql});
  EXPECT_EQ(salvaged.exit_code, 1) << salvaged.err;  // data was lost
  EXPECT_THAT(salvaged.err, HasSubstr("damaged.twr"));
  Rows rows = ParseTsv(salvaged.out);
  ASSERT_FALSE(rows.empty());
  rows.erase(rows.begin());
  ASSERT_LT(rows.size(), full.size());
  // Every row before the damage is there, in order; the rest are rows of the whole trace.
  size_t prefix = 0;
  while (prefix < rows.size() && rows[prefix] == full[prefix]) ++prefix;
  EXPECT_GE(prefix, full.size() / 3);
  const std::set<std::vector<std::string>> all(full.begin(), full.end());
  for (const std::vector<std::string>& row : rows) EXPECT_TRUE(all.contains(row));
}

TEST(QueryTest, SkippedFilesOfADirectory) {
  const std::string dir = DemoTraceDir("query_skipped");
  ASSERT_TRUE(cli_test::WriteFile(dir + "/zz-not-a-trace", "hello"));
  const CommandResult r = Query({dir, "-c", "SELECT count(*) FROM process"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, HasSubstr("tracewire query: skipped a file"));
  EXPECT_EQ(r.out, "count(*)\n2\n");
}

TEST(QueryTest, UsageErrors) {
  const std::string demo = DemoTraceDir("query_usage");
  EXPECT_EQ(Query({}).exit_code, 2);
  EXPECT_EQ(Query({demo, "--format=xml", "-c", "SELECT 1"}).exit_code, 2);
  EXPECT_EQ(Query({"-", "-", "-c", "SELECT 1"}).exit_code, 2);
  const CommandResult no_sql = Query({"-"});
  EXPECT_EQ(no_sql.exit_code, 2);
  EXPECT_THAT(no_sql.err, HasSubstr("needs -c SQL"));
  EXPECT_EQ(Query({demo + "/missing", "-c", "SELECT 1"}).exit_code, 2);
  const CommandResult help = RunCommand({Tracewire(), "query", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("usage: tracewire query"));
}

}  // namespace
}  // namespace tracewire::query_test
