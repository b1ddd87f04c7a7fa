// The Perfetto export loaded into Perfetto's own trace processor (the engine behind the
// Perfetto UI), for every kind of trace the project makes: the demo, a process tree, the
// thread pool's tasks and gauges, CPU samples, an imported git trace, a damaged trace read
// with --salvage and a time window. For each: the importer's `stats` has no error or
// data-loss entry, and its tables hold what the trace holds — processes (pid, name,
// cmdline), threads, slices, flows, counters, CPU samples and args — compared with the
// Chrome export and with `tracewire query` of the same trace.
#include "tests/perfetto/trace_processor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

const std::string& Shell() { return TraceProcessorFor("tests/perfetto/trace_processor_test.cc"); }

std::string Decode(const std::string& input, const std::string& format,
                   const std::vector<std::string>& flags, int expected_exit) {
  static int runs = 0;
  const std::string out = absl::StrCat(TempDir("decode"), "/out", ++runs, ".", format);
  std::vector<std::string> argv = {Tool("tools/tracewire"), "decode",
                                   absl::StrCat("--format=", format)};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {input, "-o", out});
  EXPECT_EQ(RunTool(argv, {}), expected_exit) << absl::StrJoin(argv, " ");
  return out;
}

int64_t Int(const std::string& cell) {
  int64_t v = 0;
  EXPECT_TRUE(absl::SimpleAtoi(cell, &v)) << cell;
  return v;
}

Rows Sorted(Rows rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

// What the Chrome export holds, in the trace processor's terms.
struct ChromeView {
  std::vector<std::tuple<std::string, int64_t, int64_t>> slices;  // (name, ts ns, dur ns)
  size_t flow_links = 0;                   // flow events minus flows: the flow table's rows
  std::map<std::string, size_t> counters;  // counter track name -> values
  std::multiset<std::string> thread_names;
  std::map<std::string, size_t> args;  // arg name -> events (X, i, b) that carry it
};

ChromeView ReadChrome(const std::string& path) {
  ChromeView v;
  const std::string text = ReadWholeFile(path);
  std::map<std::pair<int64_t, std::string>, json> open;
  std::map<int64_t, size_t> flows;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::StartsWith(line, "{\"name\"")) continue;  // one event per line
    std::string l(line);
    if (absl::EndsWith(l, ",")) l.pop_back();
    json e = json::parse(l, nullptr, false);
    if (e.is_discarded()) continue;
    const std::string ph = e["ph"];
    const auto ns = [](const json& t) { return std::llround(t.get<double>() * 1000); };
    if (ph == "M" && e["name"] == "thread_name") {
      // (The children lanes are threads in Chrome, tracks of the process in Perfetto.)
      const std::string name = e["args"]["name"];
      if (!absl::StartsWith(name, "children")) v.thread_names.insert(name);
    } else if (ph == "X") {
      v.slices.emplace_back(e["name"], ns(e["ts"]), ns(e["dur"]));
    } else if (ph == "b") {
      open[{e["pid"].get<int64_t>(), e["id2"]["local"].get<std::string>()}] = e;
    } else if (ph == "e") {
      auto it = open.find({e["pid"].get<int64_t>(), e["id2"]["local"].get<std::string>()});
      if (it == open.end()) continue;
      const int64_t ts = ns(it->second["ts"]);
      v.slices.emplace_back(it->second["name"], ts, ns(e["ts"]) - ts);
      open.erase(it);
    } else if (ph == "s" || ph == "t" || ph == "f") {
      ++flows[e["id"].get<int64_t>()];
    } else if (ph == "C") {
      // A counter's or gauge's series is the track; a timer's values are one track each.
      const std::string name = e["name"];
      for (const auto& [key, value] : e["args"].items()) {
        ++v.counters[key == "count" || key == "value" ? name : absl::StrCat(name, " ", key)];
      }
    }
    if ((ph == "X" || ph == "i" || ph == "b") && e.contains("args") && e["args"].is_object()) {
      for (const auto& [key, value] : e["args"].items()) ++v.args[key];
    }
  }
  for (const auto& [id, events] : flows) v.flow_links += events - 1;
  return v;
}

// Checks the Perfetto export of `input` (decoded with `flags`) in the trace processor.
void ExpectTraceProcessorAgrees(const std::string& input,
                                const std::vector<std::string>& flags = {}, int expected_exit = 0) {
  ASSERT_FALSE(Shell().empty())
      << "Perfetto's trace_processor_shell not found: set TRACEWIRE_TRACE_PROCESSOR or put "
         "shared/tools/perfetto/ beside the repository";
  const std::string pftrace = Decode(input, "perfetto", flags, expected_exit);
  const ChromeView chrome = ReadChrome(Decode(input, "chrome", flags, expected_exit));
  std::vector<std::string> query_flags;
  for (const std::string& f : flags) {
    if (f == "--salvage") query_flags.push_back(f);
  }
  const bool whole = query_flags.size() == flags.size();  // no window: query sees it all
  const auto tp = [&](const std::string& sql) {
    return TraceProcessorQuery(Shell(), pftrace, sql);
  };
  const auto tw = [&](const std::string& sql) {
    return TracewireQuery(input, sql, query_flags, expected_exit);
  };

  // No import error or loss.
  EXPECT_EQ(tp("select name, idx, severity, source, value from stats where value > 0 and "
               "severity in ('error', 'data_loss')"),
            Rows{});

  // Processes: each named by its argv[0], with its command line, as `tracewire query` has.
  // (The shell's CSV does not escape quotes: they are left out on both sides.)
  const Rows processes =
      tp("select pid, name, replace(cmdline, '\"', '') as cmdline from process where pid > 0");
  ASSERT_FALSE(processes.empty());
  for (const auto& row : processes) {
    if (row[2] == "[NULL]") continue;  // no start event in the trace: no name either
    EXPECT_NE(row[1], "process");
    EXPECT_TRUE(row[2] == "[NULL]" || absl::StartsWith(row[2], row[1])) << absl::StrJoin(row, ",");
  }
  if (whole) {
    Rows cmdlines;
    for (const auto& row : processes) cmdlines.push_back({row[2]});
    EXPECT_EQ(Sorted(cmdlines),
              Sorted(tw("select replace(cmdline, '\"', '') as cmdline from process")));
    for (const auto& row : tw("select pid from process where pid is not null")) {
      EXPECT_FALSE(tp(absl::StrCat("select pid from process where pid = ", row[0])).empty())
          << "pid " << row[0];
    }
  }

  // Threads: the Chrome export's, each main thread's tid its process's pid.
  std::multiset<std::string> threads;
  for (const auto& row : tp("select name from thread where utid != 0")) threads.insert(row[0]);
  EXPECT_EQ(threads, chrome.thread_names);
  if (whole) {
    std::multiset<std::string> queried;
    for (const auto& row : tw("select name from thread")) queried.insert(row[0]);
    EXPECT_EQ(threads, queried);
  }
  EXPECT_EQ(tp("select count(*) from thread t join process p using (upid) where t.tid = p.pid "
               "and p.pid > 0 and t.is_main_thread = 1"),
            tp("select count(*) from process where pid > 0 and upid in (select upid from thread)"));

  // Slices with a duration: the Chrome export's (regions, children, task segments, tasks),
  // times aligned on the earliest.
  std::vector<std::tuple<std::string, int64_t, int64_t>> slices;
  for (const auto& row : tp("select name, ts, dur from slice where dur > 0")) {
    slices.emplace_back(row[0], Int(row[1]), Int(row[2]));
  }
  std::vector<std::tuple<std::string, int64_t, int64_t>> from_chrome;
  for (const auto& s : chrome.slices) {
    if (std::get<2>(s) > 0) from_chrome.push_back(s);
  }
  ASSERT_EQ(slices.size(), from_chrome.size());
  ASSERT_FALSE(slices.empty());
  int64_t tp_min = std::get<1>(slices[0]), chrome_min = std::get<1>(from_chrome[0]);
  for (const auto& s : slices) tp_min = std::min(tp_min, std::get<1>(s));
  for (const auto& s : from_chrome) chrome_min = std::min(chrome_min, std::get<1>(s));
  for (auto& s : from_chrome) std::get<1>(s) += tp_min - chrome_min;
  std::sort(slices.begin(), slices.end());
  std::sort(from_chrome.begin(), from_chrome.end());
  EXPECT_TRUE(slices == from_chrome);
  // Regions (on thread tracks, not task segments) per category and name, as query's.
  if (whole) {
    EXPECT_EQ(Sorted(tp("select s.category, s.name, count(*) from slice s join thread_track t on "
                        "s.track_id = t.id where s.dur > 0 and s.category is not 'process' and "
                        "not exists (select 1 from args a where a.arg_set_id = s.arg_set_id and "
                        "a.key = 'debug.task') group by 1, 2")),
              Sorted(tw("select category, name, count(*) from slice where kind = 'region' "
                        "group by 1, 2")));
  }

  // Flows: a row per link, as many as the Chrome export's flow events make.
  EXPECT_EQ(tp("select count(*) from flow"), (Rows{{absl::StrCat(chrome.flow_links)}}));
  if (whole) {
    EXPECT_EQ(tp("select count(*) from flow f join slice s on f.slice_out = s.id where "
                 "s.category = 'process'"),
              tw("select count(*) from flow"));
  }

  // Counters: each track's values, as the Chrome export's series.
  std::map<std::string, size_t> counters;
  for (const auto& row : tp("select t.name, count(*) from counter c join counter_track t on "
                            "c.track_id = t.id group by t.name")) {
    counters[row[0]] = static_cast<size_t>(Int(row[1]));
  }
  for (const auto& [name, values] : chrome.counters) {
    if (absl::StrContains(name, "/")) {  // the trace's own counters (category/name)
      EXPECT_EQ(counters[name], values) << name;
    }
  }

  // CPU samples: one per period of CPU time (a sample's weight), as query's.
  if (whole) {
    EXPECT_EQ(tp("select count(*) from perf_sample"),
              tw("select coalesce(sum(weight), 0) from sample"));
    std::set<std::string> functions;
    for (const auto& row : tw("select distinct function from stack_frame")) {
      functions.insert(row[0]);
    }
    for (const auto& row : tp("select distinct f.name from perf_sample p join "
                              "stack_profile_callsite c on p.callsite_id = c.id join "
                              "stack_profile_frame f on c.frame_id = f.id")) {
      if (!absl::StartsWith(row[0], "0x")) EXPECT_TRUE(functions.contains(row[0])) << row[0];
    }
  }

  // Args: the slices carrying each of these args, as the Chrome export's events.
  for (const std::string key : {"msg", "argv", "child_id", "task", "code"}) {
    const Rows n = tp(absl::StrCat(
        "select count(*) from slice s where exists (select 1 from args a where a.arg_set_id = "
        "s.arg_set_id and (a.key = 'debug.",
        key, "' or a.key glob 'debug.", key, "[[]*'))"));
    const auto it = chrome.args.find(key);
    EXPECT_EQ(n, (Rows{{absl::StrCat(it == chrome.args.end() ? 0 : it->second)}})) << key;
  }
}

TEST(TraceProcessorTest, Demo) {
  const DemoAndTreeTraces traces = RecordDemoAndTree("tp");
  ExpectTraceProcessorAgrees(traces.demo_file);
  ExpectTraceProcessorAgrees(traces.tree_dir);
}

TEST(TraceProcessorTest, ThreadPoolTasksAndGauges) {
  const std::string trace = TempDir("threadpool") + "/trace.twr";
  ASSERT_EQ(RunTool({Tool("examples/threadpool/threadpool"), "300"},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_CATEGORIES", "-debug"}}),
            0);
  ExpectTraceProcessorAgrees(trace);
  // The tasks of one name are on lanes that all carry that name.
  const std::string pftrace = Decode(trace, "perfetto", {}, 0);
  const Rows lanes = TraceProcessorQuery(
      Shell(), pftrace,
      "select t.name, count(distinct t.id) from slice s join track t on s.track_id = t.id where "
      "exists (select 1 from args a where a.arg_set_id = s.arg_set_id and a.key = 'debug.task') "
      "and t.name not like '% tasks' group by t.name");
  ASSERT_EQ(lanes.size(), 1u);
  EXPECT_EQ(lanes[0][0], "request");
}

TEST(TraceProcessorTest, CpuSamples) {
  const std::string trace = TempDir("cpu") + "/cpu.twr";
  ASSERT_EQ(RunTool({Tool("tests/viewers/cpu_workload"), "0.1"},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_CPU_PROFILE", "250"}}),
            0);
  ExpectTraceProcessorAgrees(trace);
}

TEST(TraceProcessorTest, ImportedGitTrace) {
  const std::string dir = TempDir("imported");
  ASSERT_EQ(RunTool({Tool("tools/tracewire"), "import", "--from=trace2-event",
                     Tool("tests/cli/testdata/git_event_stream.json"), "-o", dir + "/git.twr"},
                    {}),
            0);
  ExpectTraceProcessorAgrees(dir + "/git.twr");
}

// A Go execution trace's CPU samples: their frames are in no module the trace names, and
// each still has a mapping (the trace processor counts frames without a valid one).
TEST(TraceProcessorTest, ImportedGoTraceSamples) {
  ASSERT_FALSE(Shell().empty());
  const std::string out = TempDir("go") + "/go.twr";
  ASSERT_EQ(RunTool({Tool("tools/tracewire"), "import", "--from=go",
                     Tool("tests/go_import/testdata/go123.trace"), "-o", out},
                    {}),
            0);
  const std::string pftrace = Decode(out, "perfetto", {}, 0);
  const auto tp = [&](const std::string& sql) {
    return TraceProcessorQuery(Shell(), pftrace, sql);
  };
  const Rows samples = tp("select count(*) from perf_sample");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_GT(Int(samples[0][0]), 0);
  EXPECT_EQ(tp("select name, value from stats where name like 'stackprofile%' and value > 0"),
            Rows());
  EXPECT_EQ(tp("select count(*) from stack_profile_frame f left join stack_profile_mapping m on "
               "f.mapping = m.id where m.id is null"),
            Rows{{"0"}});
}

TEST(TraceProcessorTest, DamagedTraceWithSalvage) {
  const DemoAndTreeTraces traces = RecordDemoAndTree("tpdamaged");
  std::string bytes = ReadWholeFile(traces.demo_file);
  ASSERT_GT(bytes.size(), 2000u);
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) bytes[i] ^= 0x5a;
  const std::string damaged = TempDir("damaged") + "/demo.tw";
  std::ofstream(damaged, std::ios::binary) << bytes;
  ExpectTraceProcessorAgrees(damaged, {"--salvage"}, 1);
}

TEST(TraceProcessorTest, TimeWindow) {
  const std::string trace = TempDir("window") + "/bench.tw";
  ASSERT_EQ(RunTool({Tool("tests/bench/make_bench_trace"), "--threads=3", "--events=30000",
                     "--events_per_generation=10000", trace},
                    {}),
            0);
  const Rows range = TracewireQuery(trace, "select min(ts), max(ts + dur) from slice");
  ASSERT_EQ(range.size(), 1u);
  const int64_t length = Int(range[0][1]) - Int(range[0][0]);
  ExpectTraceProcessorAgrees(trace, {absl::StrCat("--since=", length / 3, "ns"),
                                     absl::StrCat("--until=", length * 2 / 3, "ns")});
}

}  // namespace
}  // namespace tracewire::testing
