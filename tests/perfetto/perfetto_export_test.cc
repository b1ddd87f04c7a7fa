// `tracewire decode --format=perfetto` on real traces: the demo (two processes, threads,
// regions, data, a child, a timer, a counter, an error), a 3-level testtool process tree, a
// 1 M-event trace of four threads, an imported git EVENT stream and a damaged trace read
// with --salvage, and the thread-pool example's tasks and gauges. Each output parses with the
// repository's schema and passes the structural checker (tests/perfetto/perfetto_checker.h); the
// slices (track, name, ts, dur) equal those of the same trace exported as Chrome JSON.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
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
#include "tests/perfetto/perfetto_checker.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

const DemoAndTreeTraces& Traces() {
  static const DemoAndTreeTraces* traces = new DemoAndTreeTraces(RecordDemoAndTree("perfetto"));
  return *traces;
}

// Runs `tracewire decode --format=<format> [flags] <input> -o <out>`; returns the output.
std::string Decode(const std::string& input, const std::string& format,
                   const std::vector<std::string>& flags = {}, int expected_exit = 0) {
  static int runs = 0;
  const std::string out = absl::StrCat(TempDir("decode"), "/out", ++runs, ".", format);
  std::vector<std::string> argv = {Tool("tools/tracewire"), "decode",
                                   absl::StrCat("--format=", format)};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {input, "-o", out});
  EXPECT_EQ(RunTool(argv, {}), expected_exit) << absl::StrJoin(argv, " ");
  return ReadWholeFile(out);
}

// The slices of a Chrome export: X events, on tracks "<pid>/<thread name>", times in ns.
std::vector<CheckedSlice> ChromeSlices(const std::string& text) {
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;
  std::vector<json> complete;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (!absl::StartsWith(line, "{\"name\"")) continue;  // one event per line
    if (absl::EndsWith(line, ",")) line.pop_back();
    json e = json::parse(line, nullptr, false);
    EXPECT_FALSE(e.is_discarded()) << line;
    if (e.is_discarded()) continue;
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      thread_names[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}] = e["args"]["name"];
    } else if (e["ph"] == "X") {
      complete.push_back(std::move(e));
    }
  }
  std::vector<CheckedSlice> slices;
  for (const json& e : complete) {
    const int64_t pid = e["pid"].get<int64_t>();
    CheckedSlice s;
    s.track = absl::StrCat(pid, "/", thread_names[{pid, e["tid"].get<int64_t>()}]);
    s.name = e["name"];
    s.category = e.value("cat", "");
    s.ts = std::llround(e["ts"].get<double>() * 1000);
    s.dur = std::llround(e["dur"].get<double>() * 1000);
    slices.push_back(std::move(s));
  }
  std::sort(slices.begin(), slices.end());
  return slices;
}

// Tasks and gauges of a Chrome export: task slices (nestable async b/e paired by id), task
// flows (s/t/f by id: their event counts) and gauge points ("C" of category gauge, by
// "<pid>/<series name>").
struct ChromeTasks {
  std::vector<CheckedSlice> tasks;  // track: "<pid>/tasks"
  std::multiset<size_t> flow_lengths;
  std::map<std::string, std::vector<double>> gauges;
};

ChromeTasks ChromeTaskView(const std::string& text) {
  ChromeTasks out;
  std::map<std::pair<int64_t, std::string>, json> open;
  std::map<int64_t, size_t> flows;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (!absl::StartsWith(line, "{\"name\"")) continue;
    if (absl::EndsWith(line, ",")) line.pop_back();
    json e = json::parse(line, nullptr, false);
    if (e.is_discarded()) continue;
    const std::string ph = e["ph"];
    const int64_t pid = e["pid"].get<int64_t>();
    if (ph == "b") {
      open[{pid, e["id2"]["local"].get<std::string>()}] = e;
    } else if (ph == "e") {
      auto it = open.find({pid, e["id2"]["local"].get<std::string>()});
      if (it == open.end()) continue;
      const json& b = it->second;
      CheckedSlice s;
      s.track = absl::StrCat(pid, "/tasks");
      s.name = b["name"];
      s.category = b.value("cat", "");
      s.ts = std::llround(b["ts"].get<double>() * 1000);
      s.dur = std::llround(e["ts"].get<double>() * 1000) - s.ts;
      out.tasks.push_back(std::move(s));
      open.erase(it);
    } else if ((ph == "s" || ph == "t" || ph == "f") && e["name"] == "task") {
      ++flows[e["id"].get<int64_t>()];
    } else if (ph == "C" && e.value("cat", "") == "gauge") {
      out.gauges[absl::StrCat(pid, "/", e["name"].get<std::string>())].push_back(
          e["args"]["value"].get<double>());
    }
  }
  for (const auto& [id, events] : flows) out.flow_lengths.insert(events);
  std::sort(out.tasks.begin(), out.tasks.end());
  return out;
}

// A slice on a task track (a lane of the tasks of one name, named as they are; segments
// are on "<thread name> tasks").
bool OnTaskTrack(const CheckedSlice& s) {
  return s.args.contains("task") && !absl::EndsWith(s.track, " tasks");
}

// The last component of a path.
std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string SliceText(const CheckedSlice& s) {
  return absl::StrCat(s.track, " '", s.name, "' ", s.ts, "+", s.dur);
}

// Checks the Perfetto export against the rules and against the Chrome export's slices.
CheckedTrace ExpectSameSlices(const std::string& input, const std::vector<std::string>& flags = {},
                              int expected_exit = 0) {
  const std::string perfetto = Decode(input, "perfetto", flags, expected_exit);
  const std::string chrome = Decode(input, "chrome", flags, expected_exit);
  CheckedTrace checked = CheckPerfettoTrace(perfetto);
  EXPECT_TRUE(checked.problems.empty()) << absl::StrJoin(checked.problems, "\n");
  // Task segments are on a track of their own under their thread ("<thread name> tasks"),
  // the Chrome export's on the thread; task slices (on task tracks) are the Chrome
  // export's async slices, compared by the tasks test.
  const std::vector<CheckedSlice> all = std::move(checked.slices);
  checked.slices.clear();
  for (CheckedSlice s : all) {
    if (OnTaskTrack(s)) continue;
    if (s.args.contains("task") && absl::EndsWith(s.track, " tasks")) {
      s.track.resize(s.track.size() - 6);
    }
    checked.slices.push_back(std::move(s));
  }
  std::sort(checked.slices.begin(), checked.slices.end());
  const std::vector<CheckedSlice> from_chrome = ChromeSlices(chrome);
  EXPECT_EQ(checked.slices.size(), from_chrome.size());
  EXPECT_FALSE(from_chrome.empty());
  if (checked.slices.empty() || from_chrome.empty()) return checked;
  // Chrome's times count from a base of its own: align the earliest slice.
  int64_t perfetto_min = checked.slices[0].ts, chrome_min = from_chrome[0].ts;
  for (const CheckedSlice& s : checked.slices) perfetto_min = std::min(perfetto_min, s.ts);
  for (const CheckedSlice& s : from_chrome) chrome_min = std::min(chrome_min, s.ts);
  std::vector<CheckedSlice> shifted = from_chrome;
  for (CheckedSlice& s : shifted) s.ts += perfetto_min - chrome_min;
  std::sort(shifted.begin(), shifted.end());
  size_t differences = 0;
  for (size_t i = 0; i < std::min(shifted.size(), checked.slices.size()); ++i) {
    const CheckedSlice& c = shifted[i];
    const CheckedSlice& p = checked.slices[i];
    if (c.track != p.track || c.name != p.name || c.ts != p.ts || c.dur != p.dur ||
        c.category != p.category) {
      if (++differences <= 5) {
        ADD_FAILURE() << "slice " << i << ": chrome " << SliceText(c) << ", perfetto "
                      << SliceText(p);
      }
    }
  }
  EXPECT_EQ(differences, 0u);
  return checked;
}

TEST(PerfettoExportTest, DemoHasEveryKindOfTrack) {
  for (const std::string& input : {Traces().demo_file, Traces().demo_dir}) {
    SCOPED_TRACE(input);
    const CheckedTrace t = ExpectSameSlices(input);
    EXPECT_EQ(t.process_names.size(), 2u);
    bool demo_named = false;
    for (const auto& [pid, name] : t.process_names)
      demo_named |= absl::StartsWith(BaseName(name), "demo");
    EXPECT_TRUE(demo_named);
    EXPECT_GE(t.thread_tracks.size(), 3u);
    EXPECT_GE(t.sequences, t.thread_tracks.size());
    EXPECT_GT(t.interned_strings, 10u);
    EXPECT_FALSE(t.counters.empty());  // the demo's timer and counter
    bool data = false, error = false;
    for (const CheckedInstant& i : t.instants) {
      data |= i.args.contains("value") && i.args.contains("nesting");
      error |= i.category == "error" && i.args.contains("msg") &&
               absl::EndsWith(i.track, "/process");  // errors are process-scoped
    }
    EXPECT_TRUE(data);
    EXPECT_TRUE(error);
    bool child = false;
    for (const CheckedSlice& s : t.slices) {
      child |= s.category == "process" && absl::StrContains(s.track, "/children") &&
               s.args.contains("argv") && s.args.contains("pid");
    }
    EXPECT_TRUE(child);
    EXPECT_GE(t.flows, 1u);  // the demo's child process
  }
}

TEST(PerfettoExportTest, ProcessTreeFlowsJoinEachChild) {
  for (const std::string& input : {Traces().tree_file, Traces().tree_dir}) {
    SCOPED_TRACE(input);
    const CheckedTrace t = ExpectSameSlices(input);
    EXPECT_EQ(t.process_names.size(), 3u);
    EXPECT_EQ(t.flows, 2u);  // parent -> child -> grandchild
  }
}

TEST(PerfettoExportTest, MillionEventsOfFourThreads) {
  const std::string dir = TempDir("million");
  const std::string trace = dir + "/bench.tw";
  ASSERT_EQ(RunTool({Tool("tests/bench/make_bench_trace"), "--threads=4", "--events=1000000",
                     "--events_per_generation=250000", trace},
                    {}),
            0);
  const CheckedTrace t = ExpectSameSlices(trace);
  EXPECT_GE(t.track_events, 900000u);
  EXPECT_EQ(t.thread_tracks.size(), 4u);
}

TEST(PerfettoExportTest, ThreadPoolTasksAndGauges) {
  constexpr int kRequests = 1000;
  const std::string trace = TempDir("threadpool") + "/trace.twr";
  ASSERT_EQ(RunTool({Tool("examples/threadpool/threadpool"), absl::StrCat(kRequests)},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_CATEGORIES", "-debug"}}),
            0);
  // Rules, and the same region and segment slices as the Chrome export.
  const CheckedTrace t = ExpectSameSlices(trace);
  const ChromeTasks chrome = ChromeTaskView(Decode(trace, "chrome"));
  const CheckedTrace full = CheckPerfettoTrace(Decode(trace, "perfetto"));
  ASSERT_TRUE(full.problems.empty()) << absl::StrJoin(full.problems, "\n");

  // One task slice per request, as the Chrome export's async slices (name, category, times).
  std::vector<CheckedSlice> tasks;
  size_t segments = 0;
  for (const CheckedSlice& s : full.slices) {
    if (OnTaskTrack(s)) {
      CheckedSlice task = s;
      task.track = task.track.substr(0, task.track.find('/')) + "/tasks";
      task.args.clear();
      EXPECT_TRUE(s.args.contains("task")) << SliceText(s);
      tasks.push_back(std::move(task));
    } else if (s.args.contains("task")) {
      ++segments;
    }
  }
  std::sort(tasks.begin(), tasks.end());
  EXPECT_EQ(tasks.size(), static_cast<size_t>(kRequests));
  ASSERT_EQ(tasks.size(), chrome.tasks.size());
  const int64_t shift = tasks.empty() ? 0 : tasks[0].ts - chrome.tasks[0].ts;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const CheckedSlice& c = chrome.tasks[i];
    const CheckedSlice& p = tasks[i];
    ASSERT_EQ(std::tie(c.track, c.name, c.category), std::tie(p.track, p.name, p.category)) << i;
    ASSERT_EQ(c.ts + shift, p.ts) << i;
    ASSERT_EQ(c.dur, p.dur) << i;
  }
  // Each request crosses the acceptor, a worker and the writer: >= 3 segments.
  EXPECT_GE(segments, 3u * kRequests);

  // One flow per task through its segments, with as many events as the Chrome export's.
  std::multiset<size_t> flow_lengths;
  for (const auto& [id, events] : full.flow_events) {
    if (id >= (uint64_t{1} << 62)) flow_lengths.insert(events);  // (not a child's flow)
  }
  EXPECT_EQ(flow_lengths.size(), static_cast<size_t>(kRequests));
  EXPECT_EQ(flow_lengths, chrome.flow_lengths);
  EXPECT_GE(*flow_lengths.begin(), 3u);

  // Every gauge sample, in order, on a counter track named as the Chrome series.
  std::map<std::string, std::vector<double>> gauges;
  size_t samples = 0;
  for (const CheckedCounter& c : full.counters) {
    if (!chrome.gauges.contains(c.track)) continue;
    gauges[c.track].push_back(c.value);
    ++samples;
  }
  EXPECT_EQ(gauges, chrome.gauges);
  EXPECT_EQ(gauges.size(), 3u);  // two queues' depth and the requests in flight
  EXPECT_EQ(samples, 6u * kRequests);
  EXPECT_TRUE(gauges.contains(
      absl::StrCat(t.process_names.begin()->first, "/server/in-flight (requests)")));
}

// CPU samples: a sample of weight w is w PerfSamples on its thread, as many in all as the
// folded output's weights, each thread with at least the Chrome export's profile's samples
// of that thread; their leaf functions are the folded output's.
TEST(PerfettoExportTest, CpuSamplesPerThreadAsTheOtherExports) {
  const std::string dir = TempDir("cpu");
  const std::string trace = dir + "/cpu.twr";
  ASSERT_EQ(RunTool({Tool("tests/viewers/cpu_workload"), "0.1"},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_CPU_PROFILE", "250"}}),
            0);
  const CheckedTrace t = ExpectSameSlices(trace);
  // The Chrome export's samples per thread ("<pid>/<thread name>").
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;
  std::map<std::string, size_t> chrome_samples;
  std::vector<json> chunks;
  const std::string chrome = Decode(trace, "chrome");
  for (absl::string_view line : absl::StrSplit(chrome, '\n')) {
    if (!absl::StartsWith(line, "{\"name\"")) continue;
    std::string text(line);
    if (absl::EndsWith(text, ",")) text.pop_back();
    json e = json::parse(text, nullptr, false);
    if (e.is_discarded()) continue;
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      thread_names[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}] = e["args"]["name"];
    } else if (e["name"] == "ProfileChunk") {
      chunks.push_back(std::move(e));
    }
  }
  size_t total = 0;
  for (const json& e : chunks) {
    const json& samples = e["args"]["data"]["cpuProfile"]["samples"];
    const int64_t pid = e["pid"].get<int64_t>();
    chrome_samples[absl::StrCat(pid, "/", thread_names[{pid, e["tid"].get<int64_t>()}])] +=
        samples.size();
    total += samples.size();
  }
  EXPECT_GT(total, 50u);
  // A sample of weight w is w PerfSamples; the Chrome profile has each sample once.
  ASSERT_EQ(t.samples_by_thread.size(), chrome_samples.size());
  size_t perfetto_total = 0;
  for (const auto& [thread, samples] : t.samples_by_thread) {
    ASSERT_TRUE(chrome_samples.contains(thread)) << thread;
    EXPECT_GE(samples, chrome_samples[thread]) << thread;
    perfetto_total += samples;
  }
  EXPECT_GE(t.samples_by_thread.size(), 2u);  // the workload samples several threads
  // Leaf functions: the folded output's (names it writes unchanged), weights >= samples.
  std::map<std::string, uint64_t> folded_leaves;
  uint64_t folded_weight = 0;
  for (absl::string_view line : absl::StrSplit(Decode(trace, "folded"), '\n', absl::SkipEmpty())) {
    const size_t space = line.rfind(' ');
    ASSERT_NE(space, absl::string_view::npos) << line;
    uint64_t weight = 0;
    ASSERT_TRUE(absl::SimpleAtoi(line.substr(space + 1), &weight)) << line;
    absl::string_view stack = line.substr(0, space);
    folded_leaves[std::string(stack.substr(stack.rfind(';') + 1))] += weight;
    folded_weight += weight;
  }
  EXPECT_GE(folded_weight, total);
  EXPECT_EQ(folded_weight, perfetto_total);  // the folded stacks' weights
  std::map<std::string, uint64_t> leaves;
  for (const auto& [stack, samples] : t.sample_stacks) {
    const std::string leaf = stack.substr(stack.rfind(';') + 1);
    if (leaf.find_first_of(" ;") == std::string::npos) leaves[leaf] += samples;
  }
  ASSERT_FALSE(leaves.empty());
  for (const auto& [leaf, samples] : leaves) {
    ASSERT_TRUE(folded_leaves.contains(leaf)) << leaf;
    EXPECT_GE(folded_leaves[leaf], samples) << leaf;
  }
}

TEST(PerfettoExportTest, ImportedGitTrace) {
  const std::string dir = TempDir("imported");
  ASSERT_EQ(RunTool({Tool("tools/tracewire"), "import", "--from=trace2-event",
                     Tool("tests/cli/testdata/git_event_stream.json"), "-o", dir + "/git.twr"},
                    {}),
            0);
  const CheckedTrace t = ExpectSameSlices(dir + "/git.twr");
  EXPECT_GE(t.process_names.size(), 2u);
  bool git = false;
  for (const auto& [pid, name] : t.process_names) git |= absl::StartsWith(BaseName(name), "git");
  EXPECT_TRUE(git);
}

TEST(PerfettoExportTest, DamagedTraceWithSalvage) {
  std::string bytes = ReadWholeFile(Traces().demo_file);
  ASSERT_GT(bytes.size(), 2000u);
  // Damage a run of bytes in the middle: a generation fails to validate.
  for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i) bytes[i] ^= 0x5a;
  const std::string damaged = TempDir("damaged") + "/demo.tw";
  std::ofstream(damaged, std::ios::binary) << bytes;
  const std::string strict = Decode(damaged, "perfetto", {}, 1);
  const CheckedTrace t = ExpectSameSlices(damaged, {"--salvage"}, 1);
  EXPECT_FALSE(t.slices.empty());
  // What the strict read wrote before the damage is a valid trace too.
  EXPECT_TRUE(CheckPerfettoTrace(strict).problems.empty());
}

TEST(PerfettoExportTest, TimeWindowKeepsItsEventsAndCutsTheEdges) {
  const std::string trace = TempDir("window") + "/bench.tw";
  ASSERT_EQ(RunTool({Tool("tests/bench/make_bench_trace"), "--threads=3", "--events=200000",
                     "--events_per_generation=50000", trace},
                    {}),
            0);
  const CheckedTrace full = CheckPerfettoTrace(Decode(trace, "perfetto"));
  ASSERT_TRUE(full.problems.empty()) << absl::StrJoin(full.problems, "\n");
  ASSERT_FALSE(full.slices.empty());
  int64_t first = full.slices[0].ts, last = first;
  for (const CheckedSlice& s : full.slices) {
    first = std::min(first, s.ts);
    last = std::max(last, s.ts + s.dur);
  }
  for (const CheckedInstant& i : full.instants) first = std::min(first, i.ts);
  const int64_t since = first + (last - first) / 3, until = first + (last - first) * 2 / 3;
  const std::vector<std::string> flags = {absl::StrCat("--since=", since - first, "ns"),
                                          absl::StrCat("--until=", until - first, "ns")};
  // Rules, and the same slices as the Chrome export of the same window.
  const CheckedTrace window = ExpectSameSlices(trace, flags);
  // Slices overlapping the window, cut at its edges (a re-entered region may start a few
  // ns after `since`: times on a thread strictly increase).
  size_t overlapping = 0, cut = 0;
  for (const CheckedSlice& s : full.slices) {
    if (s.ts <= until && s.ts + s.dur >= since) ++overlapping;
    if (s.ts < since && s.ts + s.dur >= since) ++cut;
  }
  EXPECT_GT(cut, 0u);
  EXPECT_EQ(window.slices.size(), overlapping);
  for (const CheckedSlice& s : window.slices) {
    EXPECT_GE(s.ts, since) << SliceText(s);
    EXPECT_LE(s.ts + s.dur, until + 16) << SliceText(s);
  }
  size_t instants_inside = 0;
  for (const CheckedInstant& i : full.instants) instants_inside += i.ts >= since && i.ts <= until;
  EXPECT_NEAR(static_cast<double>(window.instants.size()), static_cast<double>(instants_inside),
              16);
}

TEST(PerfettoExportTest, ProcessWindowKeepsOneSubtree) {
  // The tree's processes in start order: testtool, its child testtool, region_workload.
  const std::vector<std::string> files = FilesIn(Traces().tree_dir);
  ASSERT_EQ(files.size(), 3u);
  const std::string child = files[1].substr(files[1].rfind('/') + 1);
  const size_t p = child.find("-P");
  ASSERT_NE(p, std::string::npos) << child;
  const int64_t pid = std::stoll(child.substr(p + 2, 8), nullptr, 16);
  for (const std::string& flag : {absl::StrCat("--pid=", pid), absl::StrCat("--sid=", child),
                                  absl::StrCat("--sid=*-P", child.substr(p + 2, 8))}) {
    SCOPED_TRACE(flag);
    const CheckedTrace t = ExpectSameSlices(Traces().tree_dir, {flag});
    EXPECT_EQ(t.process_names.size(), 2u);  // the child and its own child
    EXPECT_TRUE(t.process_names.contains(static_cast<int32_t>(pid)));
    EXPECT_EQ(t.flows, 1u);
  }
  const CheckedTrace none = CheckPerfettoTrace(Decode(Traces().tree_dir, "perfetto", {"--pid=1"}));
  EXPECT_TRUE(none.problems.empty());
  EXPECT_EQ(none.packets, 0u);
}

}  // namespace
}  // namespace tracewire::testing
