// The Chrome Trace Event exporter on real traces: the demo (two processes, threads,
// regions, data, a child, a timer, a counter, an error) and a 3-level process tree of
// testtool, each read from one appended file and from a directory of per-process files.
// The output is parsed and checked against the rules of the Trace Event Format: every event
// named, instants in time order per thread, complete (X) slices nested per thread. (What the
// real consumers make of it is tests/viewers/chrome_consumers_test.)
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/targets/chrome_target.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

const DemoAndTreeTraces& Traces() {
  static const DemoAndTreeTraces* traces = new DemoAndTreeTraces(RecordDemoAndTree("chrome"));
  return *traces;
}

json Export(const std::string& path, std::string* text = nullptr) {
  std::unique_ptr<targets::Formatter> formatter = targets::MakeChromeFormatter({});
  absl::StatusOr<std::string> out = FormatTrace(path, *formatter);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return json();
  if (text != nullptr) *text = *out;
  json doc = json::parse(*out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << "not JSON:\n" << *out;
  EXPECT_TRUE(doc.is_object() && doc.contains("traceEvents") && doc.contains("stackFrames"))
      << *out;
  return doc.is_object() ? doc["traceEvents"] : json();
}

using TrackKey = std::pair<int64_t, int64_t>;  // pid, tid

// What CheckRules learned about the trace.
struct Summary {
  std::map<int64_t, std::string> process_names;   // pid -> process_name (the last one)
  std::map<int64_t, std::string> process_labels;  // pid -> process_labels (the last one)
  std::set<TrackKey> named_threads;
  std::set<TrackKey> sorted_threads;
  std::map<std::string, int> phases;                      // ph -> count
  std::vector<json> slices;                               // X events, with "end_ts" added
  std::map<int64_t, std::pair<double, double>> pid_span;  // first and last time per pid
};

// The rules of the format: well-formed events, per-track increasing ts of instants and
// counters, X slices that nest on each track.
void CheckRules(const json& events, Summary* out) {
  Summary& s = *out;
  EXPECT_TRUE(events.is_array());
  if (!events.is_array()) return;
  std::map<TrackKey, double> last_ts;
  std::map<TrackKey, std::vector<std::pair<double, double>>> spans;  // X begin, end
  for (const json& e : events) {
    ASSERT_TRUE(e.is_object()) << e;
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e;
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << "every event is named: " << e;
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e;
    ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
    const std::string ph = e["ph"];
    const TrackKey key{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()};
    ++s.phases[ph];
    if (ph == "M") {
      ASSERT_TRUE(e.contains("args")) << e;
      const std::string what = e["name"];
      if (what == "process_name") {
        ASSERT_TRUE(e["args"]["name"].is_string()) << e;
        s.process_names[key.first] = e["args"]["name"];
      } else if (what == "process_labels") {
        ASSERT_TRUE(e["args"]["labels"].is_string()) << e;
        s.process_labels[key.first] = e["args"]["labels"];
      } else if (what == "thread_name") {
        ASSERT_TRUE(e["args"]["name"].is_string()) << e;
        s.named_threads.insert(key);
      } else if (what == "thread_sort_index") {
        ASSERT_TRUE(e["args"]["sort_index"].is_number_integer()) << e;
        s.sorted_threads.insert(key);
      }
      continue;
    }
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e;
    const double ts = e["ts"];
    double end = ts;
    if (ph == "X") {
      ASSERT_TRUE(e.contains("dur") && e["dur"].is_number() && e["dur"].get<double>() > 0) << e;
      end = ts + e["dur"].get<double>();
      spans[key].emplace_back(ts, end);
      json slice = e;
      slice["end_ts"] = end;
      s.slices.push_back(slice);
    } else if (ph == "i" || ph == "C") {
      auto [it, first] = last_ts.try_emplace(key, ts);
      if (!first) {
        EXPECT_GT(ts, it->second) << "instants and counters increase per thread: " << e;
        it->second = ts;
      }
      if (ph == "i") {
        const std::string scope = e["s"];
        EXPECT_TRUE(scope == "t" || scope == "p" || scope == "g") << e;
      } else {
        ASSERT_TRUE(e["args"].is_object()) << e;
        for (auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << e;
      }
    } else if (ph == "s" || ph == "f") {
      ASSERT_TRUE(e.contains("id") && e["id"].is_number_integer()) << e;
      EXPECT_EQ(e["cat"], "process") << e;
    } else {
      ADD_FAILURE() << "unexpected phase: " << e;
    }
    auto [span, new_pid] = s.pid_span.try_emplace(key.first, ts, end);
    span->second.first = std::min(span->second.first, ts);
    span->second.second = std::max(span->second.second, end);
  }
  // Slices of one track nest: each lies inside the enclosing one or after it.
  for (const auto& [key, list] : spans) {
    ExpectSpansNest(list, absl::StrCat("pid ", key.first, " tid ", key.second));
  }
  // Every track with events is named and sorted; every process named and labelled.
  std::set<TrackKey> tracks;
  for (const auto& [key, ts] : last_ts) tracks.insert(key);
  for (const auto& [key, list] : spans) tracks.insert(key);
  for (const TrackKey& key : tracks) {
    EXPECT_TRUE(s.named_threads.count(key)) << key.first << "/" << key.second;
    EXPECT_TRUE(s.sorted_threads.count(key)) << key.first << "/" << key.second;
    EXPECT_TRUE(s.process_names.count(key.first)) << key.first;
    EXPECT_TRUE(s.process_labels.count(key.first)) << key.first;
  }
}

std::vector<json> Slices(const Summary& s, const std::string& cat) {
  std::vector<json> out;
  for (const json& slice : s.slices) {
    if (slice.value("cat", "") == cat) out.push_back(slice);
  }
  return out;
}

int CountInstants(const json& events, const std::string& cat, const std::string& scope) {
  int n = 0;
  for (const json& e : events) {
    if (e["ph"] == "i" && e.value("cat", "") == cat && e.value("s", "") == scope) ++n;
  }
  return n;
}

// The slices of `list` that contain `slice` (same track, its time inside theirs).
int Enclosing(const json& slice, const std::vector<json>& list) {
  int n = 0;
  for (const json& other : list) {
    if (other["tid"] == slice["tid"] && other["pid"] == slice["pid"] &&
        other["ts"].get<double>() < slice["ts"].get<double>() &&
        other["end_ts"].get<double>() > slice["end_ts"].get<double>()) {
      ++n;
    }
  }
  return n;
}

void CheckDemo(const std::string& path) {
  std::string text;
  const json events = Export(path, &text);
  Summary s;
  CheckRules(events, &s);
  if (::testing::Test::HasFatalFailure()) return;
  // Two processes (the demo and its "demo child"), named by command, labelled with the sid.
  ASSERT_EQ(s.process_names.size(), 2u) << text;
  std::set<std::string> names;
  for (const auto& [pid, name] : s.process_names) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"demo status", "demo child"})) << text;
  for (const auto& [pid, labels] : s.process_labels) {
    const bool child = absl::StartsWith(labels, "child,");
    EXPECT_TRUE(child || absl::StartsWith(labels, "status,")) << labels;
    EXPECT_EQ(absl::StrContains(labels, "/"), child)
        << "a child's sid has its parent's: " << labels;
  }
  // ts and dur carry sub-microsecond decimals.
  EXPECT_TRUE(std::regex_search(text, std::regex("\"ts\":[0-9]+\\.[0-9]{3},"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\"dur\":[0-9]+\\.[0-9]{3},"))) << text;

  // Regions: name = label, cat = category, args msg and repo; read_recursive nests 4 deep.
  std::vector<json> dirs = Slices(s, "dir");
  ASSERT_EQ(dirs.size(), 15u);
  int max_enclosing = 0;
  for (const json& r : dirs) {
    EXPECT_EQ(r["name"], "read_recursive");
    EXPECT_TRUE(r["args"].contains("msg")) << r;
    EXPECT_TRUE(r["args"].contains("repo")) << r;
    max_enclosing = std::max(max_enclosing, Enclosing(r, dirs));
  }
  EXPECT_EQ(max_enclosing, 3);
  // Inside status/worktree.
  for (const json& r : dirs) EXPECT_EQ(Enclosing(r, Slices(s, "status")), 1) << r;
  EXPECT_EQ(Slices(s, "index").size(), 5u);  // do_read_index + 4 preload regions
  EXPECT_EQ(Slices(s, "child").size(), 1u);  // the child process's region child/work

  // Threads: main of both processes and four preload threads, each named; the preload
  // threads' start and exit are instants.
  EXPECT_EQ(s.named_threads.size(), 2u + 4u + 1u) << "+ the demo's children track";
  int thread_starts = 0;
  for (const json& e : events) thread_starts += e.value("name", "") == "thread_start";
  EXPECT_EQ(thread_starts, 4);

  // The child process: a slice on the parent's children track, with argv, class, pid, code.
  std::vector<json> children = Slices(s, "process");
  ASSERT_EQ(children.size(), 1u);
  const json& child = children[0];
  EXPECT_EQ(child["tid"], 1000000000);
  EXPECT_EQ(child["name"], "child demo");
  EXPECT_EQ(child["args"]["class"], "demo");
  EXPECT_EQ(child["args"]["argv"].size(), 2u);
  EXPECT_EQ(child["args"]["argv"][1], "child");
  EXPECT_TRUE(child["args"]["pid"].is_number_integer());
  EXPECT_EQ(child["args"]["code"], 0);
  // A flow from the child slice's start to the child process's first event.
  json flow_start, flow_end;
  for (const json& e : events) {
    if (e["ph"] == "s") flow_start = e;
    if (e["ph"] == "f") flow_end = e;
  }
  ASSERT_TRUE(flow_start.is_object() && flow_end.is_object()) << text;
  EXPECT_EQ(flow_start["id"], flow_end["id"]);
  EXPECT_EQ(flow_start["ts"], child["ts"]);
  EXPECT_EQ(flow_start["pid"], child["pid"]);
  EXPECT_EQ(flow_start["tid"], child["tid"]);
  EXPECT_EQ(flow_end["pid"], child["args"]["pid"]);
  EXPECT_EQ(flow_end["bp"], "e");

  // data, data_json, printf: thread-scope instants; the error: process scope.
  EXPECT_GE(CountInstants(events, "index", "t"), 5);  // read/cache_nr + 4 preload/sum_lstat
  EXPECT_EQ(CountInstants(events, "printf", "t"), 1);
  EXPECT_EQ(CountInstants(events, "error", "p"), 1);
  bool json_value = false;
  for (const json& e : events) {
    if (e["ph"] == "i" && e.value("name", "") == "summary") {
      json_value = e["args"]["value"].is_object() && e["args"]["value"]["changed"] == 2;
    }
  }
  EXPECT_TRUE(json_value) << "data_json is embedded as JSON";
  // Timers and counters: C events.
  std::set<std::string> counters;
  for (const json& e : events) {
    if (e["ph"] == "C") counters.insert(e["name"]);
  }
  EXPECT_TRUE(counters.count("demo/read_recursive")) << text;
  EXPECT_TRUE(counters.count("demo/files")) << text;
}

TEST(ChromeTest, DemoFile) { CheckDemo(Traces().demo_file); }

TEST(ChromeTest, DemoDirectory) { CheckDemo(Traces().demo_dir); }

void CheckTree(const std::string& path) {
  std::string text;
  const json events = Export(path, &text);
  Summary s;
  CheckRules(events, &s);
  if (::testing::Test::HasFatalFailure()) return;
  ASSERT_EQ(s.process_names.size(), 3u) << text;
  std::vector<json> children = Slices(s, "process");
  ASSERT_EQ(children.size(), 2u);
  std::set<int64_t> child_pids;
  for (const json& child : children) {
    EXPECT_EQ(child["args"]["argv"][1], "trace2");
    EXPECT_EQ(child["args"]["code"], 0);
    EXPECT_EQ(child["args"]["class"], "?");
    // The child process (one pid of the output per process; its pid is the real one) runs
    // within the parent's child slice, on the common timeline (0.5 ms of clock slack).
    const int64_t pid = child["args"]["pid"];
    child_pids.insert(pid);
    ASSERT_TRUE(s.pid_span.count(pid)) << "no events of child pid " << pid;
    EXPECT_GE(s.pid_span.at(pid).first, child["ts"].get<double>() - 500);
    EXPECT_LE(s.pid_span.at(pid).second, child["end_ts"].get<double>() + 500);
  }
  EXPECT_EQ(child_pids.size(), 2u);
  EXPECT_EQ(s.phases["s"], 2);
  EXPECT_EQ(s.phases["f"], 2);
  // The three processes: a root sid, a sid with one '/', one with two.
  std::multiset<int> depths;
  for (const auto& [pid, name] : s.process_names) {
    EXPECT_EQ(name, "testtool trace2") << name;
    depths.insert(std::count(s.process_labels[pid].begin(), s.process_labels[pid].end(), '/'));
  }
  EXPECT_EQ(depths, (std::multiset<int>{0, 1, 2}));
}

TEST(ChromeTest, ProcessTreeFile) { CheckTree(Traces().tree_file); }

TEST(ChromeTest, ProcessTreeDirectory) { CheckTree(Traces().tree_dir); }

TEST(ChromeTest, EmptyInputIsAnEmptyArray) {
  std::unique_ptr<targets::Formatter> formatter = targets::MakeChromeFormatter({});
  std::string out;
  formatter->Finish(&out);
  const json doc = json::parse(out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << out;
  EXPECT_TRUE(doc["traceEvents"].is_array() && doc["traceEvents"].empty()) << out;
  EXPECT_TRUE(doc["stackFrames"].is_object() && doc["stackFrames"].empty()) << out;
}

}  // namespace
}  // namespace tracewire::testing
