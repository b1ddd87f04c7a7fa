// The Chrome and OTLP exporters on hand-made event sequences that real short runs do not
// produce: a trace followed from its middle (leaves without enters), times that go back
// across generations, overlapping children, exec'd processes sharing a pid, bytes that are
// not UTF-8, invalid data_json, signals, truncated processes and very many regions; for
// Chrome also flows in every file order, stacks, and hostile times.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/event.h"
#include "reader/targets/chrome_target.h"
#include "reader/targets/json_check.h"
#include "reader/targets/otlp_target.h"
#include "reader/targets/valid_utf8.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;
using reader::Event;
using reader::EventKind;

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);  // 2026-01-01T00:00:00Z

// Builds events of one process.
class Events {
 public:
  explicit Events(std::string sid) : sid_(std::move(sid)) {}

  Event& Add(EventKind kind, int64_t micros, uint64_t thread = 0, int nesting = 1) {
    Event& e = events_.emplace_back();
    e.kind = kind;
    e.sid = sid_;
    e.depth = static_cast<int>(std::count(sid_.begin(), sid_.end(), '/'));
    e.thread_id = thread;
    e.thread_name = thread == 0
                        ? absl::string_view("main")
                        : absl::string_view(names_.emplace_back(absl::StrCat("th0", thread, ":w")));
    e.time = kT0 + absl::Microseconds(micros);
    e.nesting = nesting;
    return e;
  }

  std::vector<Event>& events() { return events_; }

 private:
  std::string sid_;
  std::vector<Event> events_;
  std::deque<std::string> names_;
};

std::string Format(targets::Formatter& formatter, const std::vector<Event>& events) {
  std::string out;
  for (const Event& e : events) formatter.Write(e, &out);
  formatter.Finish(&out);
  return out;
}

json ChromeDocument(const std::vector<Event>& events) {
  std::unique_ptr<targets::Formatter> f = targets::MakeChromeFormatter({});
  const std::string out = Format(*f, events);
  json doc = json::parse(out, nullptr, false);
  EXPECT_TRUE(doc.is_object() && doc["traceEvents"].is_array()) << out;
  return doc;
}

json Chrome(const std::vector<Event>& events) { return ChromeDocument(events)["traceEvents"]; }

// Checks that instants and counters increase per track, that X slices have a positive
// duration and nest per track; returns the number of X slices. With `exact_doubles` false
// (times beyond 2^53 ns, where doubles no longer tell nanoseconds apart) times need only
// not decrease.
int CheckNesting(const json& events, bool exact_doubles = true) {
  std::map<std::pair<int64_t, int64_t>, double> last;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<double, double>>> spans;
  int slices = 0;
  for (const json& e : events) {
    if (e["ph"] == "M" || e["ph"] == "s" || e["ph"] == "f") continue;
    const auto key = std::make_pair(e["pid"].get<int64_t>(), e["tid"].get<int64_t>());
    if (e["ph"] == "X") {
      EXPECT_GE(e["dur"].get<double>(), exact_doubles ? 0.001 : 0) << e;
      spans[key].emplace_back(e["ts"].get<double>(),
                              e["ts"].get<double>() + e["dur"].get<double>());
      ++slices;
      continue;
    }
    if (last.count(key)) {
      if (exact_doubles) {
        EXPECT_GT(e["ts"].get<double>(), last[key]) << e;
      } else {
        EXPECT_GE(e["ts"].get<double>(), last[key]) << e;
      }
    }
    last[key] = e["ts"];
  }
  for (const auto& [key, list] : spans) {
    ExpectSpansNest(list, absl::StrCat("pid ", key.first, " tid ", key.second));
  }
  return slices;
}

TEST(ChromeEdgeTest, FollowedFromTheMiddleOfATrace) {
  Events p("A-P00000010");
  // Regions entered before the output started (reader nesting 3 and 2) are left first.
  p.Add(EventKind::kData, 0, 0, 3).label = "key";
  p.Add(EventKind::kRegionLeave, 10, 0, 2);
  p.Add(EventKind::kRegionEnter, 20, 0, 2).label = "inner";  // inside an unknown region
  p.Add(EventKind::kRegionLeave, 30, 0, 2);
  p.Add(EventKind::kRegionLeave, 40, 0, 1);
  p.Add(EventKind::kChildExit, 50).child_id = 7;  // its start was never seen
  const json doc = Chrome(p.events());
  EXPECT_EQ(CheckNesting(doc), 1);  // "inner"
  int child_exits = 0;
  for (const json& e : doc) child_exits += e.value("name", "") == "child_exit";
  EXPECT_EQ(child_exits, 1) << "an unmatched child_exit is kept as an instant";
}

TEST(ChromeEdgeTest, TimesThatGoBackStillIncreasePerThread) {
  Events p("A-P00000010");
  p.Add(EventKind::kRegionEnter, 100, 0, 1).label = "r";
  p.Add(EventKind::kData, 50, 0, 2).label = "k";  // an earlier time (recalibration)
  p.Add(EventKind::kRegionLeave, 50, 0, 1);
  const json doc = Chrome(p.events());
  EXPECT_EQ(CheckNesting(doc), 1);
}

TEST(ChromeEdgeTest, OverlappingChildrenTakeLanesAndRegionsUnwind) {
  Events p("A-P00000010");
  p.Add(EventKind::kRegionEnter, 0, 0, 1).label = "outer";
  p.Add(EventKind::kRegionEnter, 1, 0, 2).label = "inner";
  Event& c1 = p.Add(EventKind::kChildStart, 2, 0, 3);
  c1.child_id = 1;
  c1.child_class = "hook";
  Event& c2 = p.Add(EventKind::kChildStart, 3, 0, 3);
  c2.child_id = 2;
  p.Add(EventKind::kChildExit, 4, 0, 3).child_id = 1;  // ends before child 2
  p.Add(EventKind::kTimer, 5, 0, 1);                   // unwinds both regions
  Event& c3 = p.Add(EventKind::kChildStart, 6);
  c3.child_id = 3;               // takes lane 0 again
  p.Add(EventKind::kAtexit, 7);  // ends child 2 and 3
  const json doc = Chrome(p.events());
  EXPECT_EQ(CheckNesting(doc), 2 + 3);
  std::set<int64_t> lanes;
  for (const json& e : doc) {
    if (e["ph"] == "X" && e.value("cat", "") == "process") lanes.insert(e["tid"].get<int64_t>());
  }
  EXPECT_EQ(lanes, (std::set<int64_t>{1000000000, 1000000001}));
}

TEST(ChromeEdgeTest, ExecedProcessesSharingAPidGetTheirOwn) {
  Events a("A-P00000010");
  a.Add(EventKind::kVersion, 0);
  Events b("A-P00000010/B-P00000010");  // exec keeps the pid
  b.Add(EventKind::kVersion, 1);
  Events c("C-no-pid-suffix");
  c.Add(EventKind::kVersion, 2);
  std::vector<Event> all = a.events();
  all.insert(all.end(), b.events().begin(), b.events().end());
  all.insert(all.end(), c.events().begin(), c.events().end());
  std::set<int64_t> pids;
  for (const json& e : Chrome(all)) {
    pids.insert(e["pid"].get<int64_t>());
    EXPECT_NE(e["ph"], "f") << "no flow without its child slice";
  }
  ASSERT_EQ(pids.size(), 3u);
  EXPECT_TRUE(pids.count(16));
}

// A parent (pid 0x10) running child pid 0x11, whose events come `child_at` in the stream:
// 0 = before the parent's child_start, 1 = between child_start and child_exit, 2 = after
// child_exit (files appended in that order). The flow's "s" always comes before its "f".
void CheckFlow(int child_at) {
  Events parent("A-P00000010");
  Events child("A-P00000010/B-P00000011");
  child.Add(EventKind::kVersion, 20);
  child.Add(EventKind::kAtexit, 30);
  parent.Add(EventKind::kVersion, 0);
  Event& start = parent.Add(EventKind::kChildStart, 10);
  start.child_id = 4;
  start.argv = {"/bin/b"};
  Event& exit = parent.Add(EventKind::kChildExit, 40);
  exit.child_id = 4;
  exit.pid = 0x11;
  std::vector<Event> all;
  const auto add = [&all](const std::vector<Event>& events) {
    all.insert(all.end(), events.begin(), events.end());
  };
  if (child_at == 0) add(child.events());
  all.push_back(parent.events()[0]);
  all.push_back(parent.events()[1]);
  if (child_at == 1) add(child.events());
  all.push_back(parent.events()[2]);
  if (child_at == 2) add(child.events());
  const json doc = Chrome(all);
  int s_index = -1, f_index = -1;
  json child_slice, first_child_event;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& e = doc[i];
    if (e["ph"] == "s") s_index = static_cast<int>(i);
    if (e["ph"] == "f") f_index = static_cast<int>(i);
    if (e["ph"] == "X" && e["name"] == "child b") child_slice = e;
    if (e["ph"] == "i" && e["name"] == "version" && e["pid"] == 0x11) first_child_event = e;
  }
  ASSERT_GE(s_index, 0);
  ASSERT_GT(f_index, s_index) << "the DevTools engine reads flow events in file order";
  const json& s = doc[s_index];
  const json& f = doc[f_index];
  EXPECT_EQ(s["id"], f["id"]);
  EXPECT_EQ(s["cat"], "process");
  EXPECT_EQ(f["cat"], "process");
  // Each flow event is bound to an event of the same category at the same time and track.
  EXPECT_EQ(s["ts"], child_slice["ts"]);
  EXPECT_EQ(s["tid"], child_slice["tid"]);
  EXPECT_EQ(child_slice["cat"], "process");
  EXPECT_EQ(f["ts"], first_child_event["ts"]);
  EXPECT_EQ(f["pid"], first_child_event["pid"]);
  EXPECT_EQ(first_child_event["cat"], "process");
}

TEST(ChromeEdgeTest, FlowFromChildSliceToChildProcessInAnyOrder) {
  for (int child_at = 0; child_at < 3; ++child_at) {
    SCOPED_TRACE(child_at);
    CheckFlow(child_at);
  }
}

TEST(ChromeEdgeTest, StacksBecomeStackFrames) {
  const std::vector<reader::SymbolFrame> stack = {
      {0x401000, "leaf", "src/leaf.cc", 12},  // innermost first
      {0x402000, "", "", 0},                  // not symbolized
      {0x403000, "main", "src/main.cc", 3},
  };
  const std::vector<reader::SymbolFrame> other = {
      {0x404000, "other", "", 0},
      {0x403000, "main", "src/main.cc", 3},
  };
  Events p("A-P00000010");
  Event& enter = p.Add(EventKind::kRegionEnter, 0, 0, 1);
  enter.label = "r";
  enter.stack = stack;
  Event& data = p.Add(EventKind::kData, 1, 0, 2);
  data.label = "k";
  data.stack = other;
  Event& leave = p.Add(EventKind::kRegionLeave, 2, 0, 1);
  leave.stack = stack;
  const json doc = ChromeDocument(p.events());
  const json& frames = doc["stackFrames"];
  ASSERT_EQ(frames.size(), 4u) << frames << " (main is shared)";
  // Walks from the leaf frame id to the root; returns the names, innermost first.
  const auto walk = [&frames](const json& id) {
    std::vector<std::string> names;
    std::string key = id.is_string() ? id.get<std::string>() : std::to_string(id.get<int64_t>());
    for (int guard = 0; guard < 10 && frames.contains(key); ++guard) {
      names.push_back(frames[key]["name"]);
      if (!frames[key].contains("parent")) break;
      key = frames[key]["parent"];
    }
    return names;
  };
  json region, instant;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") region = e;
    if (e["ph"] == "i" && e["name"] == "k") instant = e;
  }
  ASSERT_TRUE(region.contains("sf") && region.contains("esf") && instant.contains("sf")) << doc;
  EXPECT_EQ(walk(region["sf"]), (std::vector<std::string>{"leaf", "0x402000", "main"}));
  EXPECT_EQ(region["sf"], region["esf"]);
  EXPECT_EQ(walk(instant["sf"]), (std::vector<std::string>{"other", "main"}));
  EXPECT_EQ(frames[std::to_string(region["sf"].get<int64_t>())]["category"], "src/leaf.cc:12");
}

// Times a hostile trace can make the reader deliver: the ends of absl::Time's range and
// values beyond int64_t nanoseconds. The output stays valid JSON with finite, ordered times
// (a fuzzer once found a signed overflow where a saturated time was incremented, and one
// where INT64_MIN was negated to format it).
TEST(ChromeEdgeTest, HostileTimesNeverOverflow) {
  const absl::Time times[] = {absl::InfiniteFuture(), absl::InfinitePast(),
                              absl::FromUnixSeconds(int64_t{1} << 40),
                              absl::FromUnixSeconds(-(int64_t{1} << 40)), kT0};
  for (const absl::Time first : times) {
    Events p("A-P00000010");
    const auto add = [&p](EventKind kind, absl::Time t, int nesting) -> Event& {
      Event& e = p.Add(kind, 0, 0, nesting);
      e.time = t;
      e.label = "x";
      return e;
    };
    add(EventKind::kRegionEnter, first, 1);
    for (const absl::Time t : times) {
      add(EventKind::kData, t, 2);
      add(EventKind::kData, t, 2);  // the same saturated time again: incremented
    }
    add(EventKind::kRegionLeave, absl::InfinitePast(), 1);
    add(EventKind::kRegionEnter, absl::InfiniteFuture(), 1);  // left open: ends at Finish
    const json doc = Chrome(p.events());
    EXPECT_EQ(CheckNesting(doc, /*exact_doubles=*/false), 2);
    for (const json& e : doc) {
      if (e["ph"] == "M") continue;
      EXPECT_TRUE(e["ts"].is_number()) << e;
      // Clamped to 2^61 ns (2305843009213693.952 us), plus 1 ns per event at most.
      EXPECT_LE(std::abs(e["ts"].get<double>()), 2305843009213694.0 + 1) << e;
    }
  }
}

TEST(ChromeEdgeTest, MicrosecondsOfEveryInt64) {
  const auto micros = [](int64_t ns) {
    std::string out;
    targets::AppendChromeMicros(ns, &out);
    return out;
  };
  EXPECT_EQ(micros(0), "0.000");
  EXPECT_EQ(micros(1), "0.001");
  EXPECT_EQ(micros(-1500), "-1.500");
  EXPECT_EQ(micros(123456789), "123456.789");
  EXPECT_EQ(micros(std::numeric_limits<int64_t>::max()), "9223372036854775.807");
  EXPECT_EQ(micros(std::numeric_limits<int64_t>::min()), "-9223372036854775.808");
}

TEST(ChromeEdgeTest, InvalidBytesAndJsonStayValidJson) {
  Events p("A-P00000010");
  Event& start = p.Add(EventKind::kStart, 0);
  start.argv = {"prog\xff", "arg\xc3"};
  Event& d = p.Add(EventKind::kDataJson, 1, 0, 1);
  d.label = "bad";
  d.value_kind = reader::ValueKind::kJson;
  d.value_string = "{\"a\":";
  Event& good = p.Add(EventKind::kDataJson, 2, 0, 1);
  good.label = "good";
  good.value_kind = reader::ValueKind::kJson;
  good.value_string = "[1, {\"b\": null}]";
  const json doc = Chrome(p.events());
  for (const json& e : doc) {
    if (e.value("name", "") == "bad") {
      EXPECT_EQ(e["args"]["value"], "{\"a\":");
    }
    if (e.value("name", "") == "good") {
      EXPECT_EQ(e["args"]["value"][1]["b"], nullptr);
    }
    if (e.value("name", "") == "start") {
      EXPECT_EQ(e["args"]["argv"][0], "prog\xef\xbf\xbd");
    }
  }
}

TEST(JsonTextTest, Utf8AndJsonChecks) {
  EXPECT_TRUE(targets::IsValidUtf8("h\xc3\xa9llo \xf0\x9f\x98\x80"));
  EXPECT_FALSE(targets::IsValidUtf8("\xc0\xaf"));          // overlong
  EXPECT_FALSE(targets::IsValidUtf8("\xed\xa0\x80"));      // surrogate
  EXPECT_FALSE(targets::IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  std::string scratch;
  EXPECT_EQ(targets::ValidUtf8("a\xffz", &scratch), "a\xef\xbf\xbdz");
  for (const char* ok :
       {"0", "-1.5e+3", "\"s\\u00e9\"", "[]", "{}", " {\"a\":[true,false,null]} "}) {
    EXPECT_TRUE(targets::IsJsonText(ok)) << ok;
  }
  for (const char* bad : {"", "01", "[1,]", "{\"a\"}", "\"\\x\"", "nul", "1 2", "\"\x01\""}) {
    EXPECT_FALSE(targets::IsJsonText(bad)) << bad;
  }
  EXPECT_FALSE(targets::IsJsonText(std::string(300, '[') + std::string(300, ']')));
}

std::vector<json> Otlp(const std::vector<Event>& events) {
  std::unique_ptr<targets::Formatter> f = targets::MakeOtlpFormatter({});
  const std::string out = Format(*f, events);
  std::vector<json> spans;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    const json request = json::parse(line.begin(), line.end(), nullptr, false);
    EXPECT_FALSE(request.is_discarded()) << line;
    if (request.is_discarded()) continue;
    for (const json& s : request["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
      spans.push_back(s);
    }
  }
  return spans;
}

std::string Attr(const json& span, const std::string& key) {
  for (const json& a : span["attributes"]) {
    if (a["key"] == key) return a["value"]["stringValue"];
  }
  return "<missing>";
}

TEST(OtlpEdgeTest, SignalTruncationAndOpenSpans) {
  Events p("A-P00000010");
  p.Add(EventKind::kStart, 0).argv = {"/usr/bin/git.exe", "status"};
  Event& name = p.Add(EventKind::kCmdName, 1);
  name.cmd_name = "status";
  p.Add(EventKind::kCmdMode, 2).cmd_mode = "fast";
  p.Add(EventKind::kRegionEnter, 3, 0, 1).label = "r";
  p.Add(EventKind::kChildStart, 4, 0, 2).child_id = 1;
  p.Add(EventKind::kExec, 5, 0, 2).argv = {"/bin/true"};
  p.Add(EventKind::kSignal, 9, 0, 2).signo = 13;
  Events q("B-P00000020");  // ends without exit: truncated
  q.Add(EventKind::kVersion, 0);
  q.Add(EventKind::kThreadStart, 1, 1);
  q.Add(EventKind::kRegionEnter, 2, 1, 1).label = "t";
  std::vector<Event> all = p.events();
  all.insert(all.end(), q.events().begin(), q.events().end());
  const std::vector<json> spans = Otlp(all);
  std::map<std::string, json> by_name;
  for (const json& s : spans) by_name[s["name"]] = s;
  ASSERT_TRUE(by_name.count("git:status#fast"));
  EXPECT_EQ(Attr(by_name["git:status#fast"], "trace2.cmd.exit_code"), "141");
  EXPECT_EQ(Attr(by_name["child(class:)"], "trace2.child.pid"), "-1");
  EXPECT_EQ(Attr(by_name["exec(true)"], "trace2.exec.exitcode"), "-1");
  ASSERT_TRUE(by_name.count("region(C,r)"));  // no category: "C", as trace2receiver
  EXPECT_EQ(by_name["region(C,r)"]["endTimeUnixNano"],
            by_name["git:status#fast"]["endTimeUnixNano"]);
  ASSERT_TRUE(by_name.count("unknown"));  // no start event: no exe
  EXPECT_EQ(Attr(by_name["unknown"], "trace2.cmd.exit_code"), "-1");
  // Status: a signal is an ERROR; what the trace does not finish stays UNSET.
  EXPECT_EQ(by_name["git:status#fast"]["status"],
            json({{"message", "killed by signal 13"}, {"code", 2}}));
  EXPECT_FALSE(by_name["unknown"].contains("status"));
  EXPECT_FALSE(by_name["child(class:)"].contains("status"));
  EXPECT_FALSE(by_name["exec(true)"].contains("status"));
  EXPECT_FALSE(by_name["region(C,r)"].contains("status"));
  ASSERT_TRUE(by_name.count("th01:w"));
  EXPECT_EQ(by_name["region(C,t)"]["parentSpanId"], by_name["th01:w"]["spanId"]);
}

TEST(OtlpEdgeTest, ManyRegionsAreWrittenEarly) {
  Events p("A-P00000010");
  p.Add(EventKind::kVersion, 0);
  for (int i = 0; i < 25000; ++i) {
    p.Add(EventKind::kRegionEnter, 1 + 2 * i, 0, 1).label = "r";
    p.Add(EventKind::kRegionLeave, 2 + 2 * i, 0, 1);
  }
  p.Add(EventKind::kAtexit, 60000);
  std::unique_ptr<targets::Formatter> f = targets::MakeOtlpFormatter({});
  const std::string out = Format(*f, p.events());
  const std::vector<absl::string_view> lines = absl::StrSplit(out, '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), 3u);  // 10000 + 10000 regions early, then the rest and the process
  const std::vector<json> spans = Otlp(p.events());
  EXPECT_EQ(spans.size(), 25001u);
}

}  // namespace
}  // namespace tracewire::testing
