// The Chrome and OTLP exporters on hand-made event sequences that real short runs do not
// produce: a trace followed from its middle (leaves without enters), times that go back
// across generations, overlapping children, exec'd processes sharing a pid, bytes that are
// not UTF-8, invalid data_json, signals, truncated processes and very many regions.
#include <algorithm>
#include <deque>
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

json Chrome(const std::vector<Event>& events) {
  std::unique_ptr<targets::Formatter> f = targets::MakeChromeFormatter({});
  const std::string out = Format(*f, events);
  json doc = json::parse(out, nullptr, false);
  EXPECT_TRUE(doc.is_array()) << out;
  return doc;
}

// Checks per-track increasing ts and B/E nesting; returns the number of B events.
int CheckNesting(const json& doc) {
  std::map<std::pair<int64_t, int64_t>, double> last;
  std::map<std::pair<int64_t, int64_t>, int> depth;
  int begins = 0;
  for (const json& e : doc) {
    if (e["ph"] == "M") continue;
    const auto key = std::make_pair(e["pid"].get<int64_t>(), e["tid"].get<int64_t>());
    if (last.count(key)) {
      EXPECT_GT(e["ts"].get<double>(), last[key]) << e;
    }
    last[key] = e["ts"];
    if (e["ph"] == "B") {
      ++depth[key];
      ++begins;
    }
    if (e["ph"] == "E") {
      EXPECT_GE(--depth[key], 0) << e;
    }
  }
  for (const auto& [key, d] : depth) EXPECT_EQ(d, 0);
  return begins;
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
  EXPECT_EQ(CheckNesting(doc), 2);  // main's lifetime and "inner"
}

TEST(ChromeEdgeTest, TimesThatGoBackStillIncreasePerThread) {
  Events p("A-P00000010");
  p.Add(EventKind::kRegionEnter, 100, 0, 1).label = "r";
  p.Add(EventKind::kData, 50, 0, 2).label = "k";  // an earlier time (recalibration)
  p.Add(EventKind::kRegionLeave, 50, 0, 1);
  const json doc = Chrome(p.events());
  CheckNesting(doc);
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
  p.Add(EventKind::kAtexit, 7);  // closes child 2 and 3 and main
  const json doc = Chrome(p.events());
  EXPECT_EQ(CheckNesting(doc), 1 + 2 + 3);
  std::set<int64_t> lanes;
  for (const json& e : doc) {
    if (e["ph"] == "B" && e["cat"] == "child_process") lanes.insert(e["tid"].get<int64_t>());
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
  for (const json& e : Chrome(all)) pids.insert(e["pid"].get<int64_t>());
  ASSERT_EQ(pids.size(), 3u);
  EXPECT_TRUE(pids.count(16));
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
