// The OTLP/JSON exporter on real traces (the demo and a 3-level testtool tree, from one
// file and from a directory): every line is an ExportTraceServiceRequest with the fields
// OTLP/JSON requires, ids follow trace2receiver's sid rules, every parent exists, every
// span lies within its parent, trace2receiver's attributes are strings and the OTel
// semantic-convention ones typed, and failed processes and children have an ERROR status.
#include <openssl/evp.h>

#include <cstdint>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/targets/otlp_target.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

const DemoAndTreeTraces& Traces() {
  static const DemoAndTreeTraces* traces = new DemoAndTreeTraces(RecordDemoAndTree("otlp"));
  return *traces;
}

std::string HexSha256(const std::string& data, size_t from, size_t to) {
  unsigned char digest[32];
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (size_t i = from; i < to; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

struct Span {
  json raw;
  std::string sid;  // of the resource (process) it was exported with
  std::string id;
  std::string parent;  // empty for none
  uint64_t start = 0;
  uint64_t end = 0;
  std::map<std::string, std::string> attributes;
  std::map<std::string, std::string> resource;

  std::string Attr(const std::string& key) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? "<missing " + key + ">" : it->second;
  }
  std::string type() const { return Attr("trace2.span.type"); }
};

uint64_t Nanos(const json& value) {
  EXPECT_TRUE(value.is_string()) << "times are decimal strings: " << value;
  uint64_t n = 0;
  EXPECT_TRUE(value.is_string() && std::regex_match(value.get<std::string>(), std::regex("[0-9]+")))
      << value;
  if (value.is_string()) {
    EXPECT_TRUE(absl::SimpleAtoi(value.get<std::string>(), &n)) << value;
  }
  return n;
}

// The attributes as key -> string: trace2receiver's (and the other string attributes) by
// value; the typed OTel semantic-convention ones as the JSON text of their AnyValue.
std::map<std::string, std::string> Attributes(const json& list) {
  std::map<std::string, std::string> out;
  EXPECT_TRUE(list.is_array()) << list;
  for (const json& a : list) {
    EXPECT_TRUE(a.contains("key") && a["key"].is_string()) << a;
    EXPECT_TRUE(a.contains("value") && a["value"].is_object() && a["value"].size() == 1) << a;
    const std::string key = a.value("key", "");
    if (absl::StartsWith(key, "trace2.") || absl::StartsWith(key, "service.")) {
      EXPECT_TRUE(a["value"].contains("stringValue") && a["value"]["stringValue"].is_string())
          << "trace2receiver writes every value as a string: " << a;
    }
    if (a["value"].contains("stringValue") && a["value"]["stringValue"].is_string()) {
      out[key] = a["value"]["stringValue"];
    } else {
      out[key] = a["value"].dump();
    }
  }
  return out;
}

// Parses the JSON lines and checks the shape of every request and span.
std::vector<Span> Parse(const std::string& text) {
  std::vector<Span> spans;
  EXPECT_TRUE(absl::EndsWith(text, "\n"));
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const json request = json::parse(line.begin(), line.end(), nullptr, false);
    EXPECT_FALSE(request.is_discarded()) << line;
    if (request.is_discarded()) continue;
    EXPECT_EQ(request.size(), 1u) << line;
    const json& resource_spans = request["resourceSpans"];
    EXPECT_TRUE(resource_spans.is_array() && resource_spans.size() == 1) << line;
    for (const json& rs : resource_spans) {
      const std::map<std::string, std::string> resource = Attributes(rs["resource"]["attributes"]);
      EXPECT_EQ(resource.at("service.namespace"), "trace2");
      EXPECT_FALSE(resource.at("service.name").empty());
      const std::string sid = resource.at("trace2.cmd.sid");
      EXPECT_EQ(resource.at("service.instance.id"), sid);
      EXPECT_TRUE(rs["scopeSpans"].is_array() && rs["scopeSpans"].size() == 1) << line;
      for (const json& ss : rs["scopeSpans"]) {
        EXPECT_EQ(ss["scope"]["name"], "tracewire");
        EXPECT_TRUE(ss["scope"]["version"].is_string() && !ss["scope"]["version"].empty());
        EXPECT_TRUE(ss["spans"].is_array());
        for (const json& s : ss["spans"]) {
          Span span;
          span.raw = s;
          span.sid = sid;
          EXPECT_TRUE(s["traceId"].is_string() &&
                      std::regex_match(s["traceId"].get<std::string>(), std::regex("[0-9a-f]{32}")))
              << s;
          EXPECT_TRUE(s["spanId"].is_string() &&
                      std::regex_match(s["spanId"].get<std::string>(), std::regex("[0-9a-f]{16}")))
              << s;
          EXPECT_NE(s.value("spanId", ""), "0000000000000000") << s;
          EXPECT_TRUE(s["name"].is_string() && !s["name"].get<std::string>().empty()) << s;
          EXPECT_TRUE(s["kind"] == 1 || s["kind"] == 2) << s;
          span.id = s.value("spanId", "");
          if (s.contains("parentSpanId")) {
            span.parent = s["parentSpanId"];
            EXPECT_TRUE(std::regex_match(span.parent, std::regex("[0-9a-f]{16}"))) << s;
          }
          span.start = Nanos(s["startTimeUnixNano"]);
          span.end = Nanos(s["endTimeUnixNano"]);
          EXPECT_LE(span.start, span.end) << s;
          span.attributes = Attributes(s["attributes"]);
          span.resource = resource;
          spans.push_back(std::move(span));
        }
      }
    }
  }
  return spans;
}

std::vector<std::string> SidParts(const std::string& sid) { return absl::StrSplit(sid, '/'); }

// Parentage, ids and times over a whole process tree; returns the process spans by sid.
std::map<std::string, const Span*> CheckTree(const std::vector<Span>& spans, size_t processes) {
  std::map<std::string, const Span*> by_id;
  for (const Span& s : spans) {
    EXPECT_TRUE(by_id.emplace(s.id, &s).second) << "duplicate span id " << s.id;
  }
  std::map<std::string, const Span*> process_spans;
  for (const Span& s : spans) {
    const std::vector<std::string> parts = SidParts(s.sid);
    // One trace per tree: SHA-256 of the root sid component.
    EXPECT_EQ(s.raw["traceId"], HexSha256(parts.front(), 0, 16)) << s.raw;
    if (s.type() == "process") {
      EXPECT_EQ(s.raw["kind"], 2);
      EXPECT_TRUE(process_spans.emplace(s.sid, &s).second) << "two process spans for " << s.sid;
      EXPECT_EQ(s.id, HexSha256(parts.back(), 16, 24));
      if (parts.size() == 1) {
        EXPECT_TRUE(s.parent.empty()) << s.raw;
      } else {
        EXPECT_EQ(s.parent, HexSha256(parts[parts.size() - 2], 16, 24));
      }
    } else {
      EXPECT_EQ(s.raw["kind"], 1);
      EXPECT_FALSE(s.parent.empty()) << s.raw;
    }
    if (s.parent.empty()) continue;
    auto parent = by_id.find(s.parent);
    if (parent == by_id.end()) {
      ADD_FAILURE() << "missing parent of " << s.raw;
      continue;
    }
    const Span& p = *parent->second;
    // Within the parent: exactly for spans of one process; across processes (a child
    // process's span in its parent's) with 1 ms for the two processes' clock calibrations.
    const uint64_t slack = p.sid == s.sid ? 0 : 1000000;
    EXPECT_GE(s.start + slack, p.start) << s.raw << "\nparent " << p.raw;
    EXPECT_LE(s.end, p.end + slack) << s.raw << "\nparent " << p.raw;
    if (s.type() != "process") {
      EXPECT_EQ(p.sid, s.sid) << "spans of a process hang below that process: " << s.raw;
    }
    if (s.type() == "region" && p.type() == "region") {
      EXPECT_EQ(std::stoi(s.Attr("trace2.region.nesting")),
                std::stoi(p.Attr("trace2.region.nesting")) + 1);
    }
    if (s.type() == "thread" || s.type() == "child" || s.type() == "exec") {
      EXPECT_EQ(p.type(), "process") << s.raw;
    }
  }
  EXPECT_EQ(process_spans.size(), processes);
  for (const auto& [sid, span] : process_spans) {
    for (const char* key : {"trace2.cmd.name", "trace2.cmd.name_verb", "trace2.cmd.name_verb_mode",
                            "trace2.cmd.hierarchy", "trace2.cmd.exit_code", "trace2.cmd.argv"}) {
      EXPECT_TRUE(span->attributes.count(key)) << key << " in " << span->raw;
    }
    const json argv = json::parse(span->Attr("trace2.cmd.argv"), nullptr, false);
    EXPECT_TRUE(argv.is_array() && !argv.empty()) << span->raw;
  }
  return process_spans;
}

std::string Export(const std::string& path) {
  std::unique_ptr<targets::Formatter> formatter = targets::MakeOtlpFormatter({});
  absl::StatusOr<std::string> out = FormatTrace(path, *formatter);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : "";
}

void CheckDemo(const std::string& path) {
  const std::string text = Export(path);
  const std::vector<Span> spans = Parse(text);
  const std::map<std::string, const Span*> processes = CheckTree(spans, 2);
  ASSERT_EQ(processes.size(), 2u) << text;
  const Span& root = *processes.begin()->second;  // the shorter sid sorts first
  const Span& child = *processes.rbegin()->second;
  EXPECT_EQ(root.raw["name"], "demo:status");
  EXPECT_EQ(root.Attr("trace2.cmd.name"), "demo");
  EXPECT_EQ(root.Attr("trace2.cmd.exit_code"), "1");
  EXPECT_EQ(root.Attr("trace2.cmd.hierarchy"), "status");
  EXPECT_EQ(root.Attr("trace2.cmd.error.format"), "pathspec '%s' did not match any file(s)");
  EXPECT_TRUE(absl::StrContains(root.Attr("trace2.process.timers"), "\"read_recursive\""));
  EXPECT_TRUE(absl::StrContains(root.Attr("trace2.process.counters"), "\"files\""));
  EXPECT_TRUE(absl::StrContains(root.Attr("trace2.param.set"), "core.editor"));
  EXPECT_TRUE(absl::StrContains(root.Attr("trace2.repo.set"), "/tmp/demo-worktree"));
  // OTel semantics: status, typed process attributes, scope.
  EXPECT_EQ(
      root.raw["status"],
      json({{"code", 2}, {"message", "pathspec 'nonexistent.txt' did not match any file(s)"}}));
  EXPECT_EQ(child.raw["status"], json({{"code", 1}}));
  EXPECT_EQ(root.Attr("process.exit.code"), R"({"intValue":"1"})");
  const std::string pid_hex = root.sid.substr(root.sid.rfind("-P") + 2);
  const std::string pid = absl::StrCat(R"({"intValue":")", std::stoul(pid_hex, nullptr, 16), "\"}");
  EXPECT_EQ(root.Attr("process.pid"), pid);
  EXPECT_EQ(root.resource.at("process.pid"), pid);
  EXPECT_EQ(child.resource.at("process.parent_pid"), pid);
  EXPECT_EQ(root.resource.at("process.executable.name"), "demo");
  const json args = json::parse(root.resource.at("process.command_args"));
  ASSERT_EQ(args["arrayValue"]["values"].size(), 1u) << args;
  EXPECT_TRUE(
      absl::EndsWith(args["arrayValue"]["values"][0]["stringValue"].get<std::string>(), "/demo"));
  ASSERT_EQ(root.raw["events"].size(), 1u) << root.raw;
  EXPECT_EQ(root.raw["events"][0]["name"], "exception");
  EXPECT_EQ(child.raw["name"], "demo:child");
  EXPECT_EQ(child.Attr("trace2.cmd.exit_code"), "0");
  EXPECT_EQ(child.Attr("trace2.cmd.hierarchy"), "status/child");
  EXPECT_EQ(child.parent, root.id);

  std::map<std::string, int> types;
  for (const Span& s : spans) ++types[s.type()];
  EXPECT_EQ(types["thread"], 4);
  EXPECT_EQ(types["child"], 1);
  EXPECT_EQ(types["region"], 1 + 1 + 4 + 15 + 1);  // worktree, index, preload x4, dirs, work
  for (const Span& s : spans) {
    if (s.type() == "thread") {
      EXPECT_TRUE(absl::EndsWith(s.raw["name"].get<std::string>(), ":preload_index"));
      EXPECT_EQ(s.Attr("thread.name"), s.raw["name"]);
      EXPECT_TRUE(
          std::regex_match(s.Attr("thread.id"), std::regex(R"(\{"intValue":"[1-9][0-9]*"\})")))
          << s.Attr("thread.id");
      EXPECT_TRUE(absl::StrContains(s.Attr("trace2.thread.counters"), "\"files\""));
    }
    if (s.type() == "child") {
      EXPECT_EQ(s.raw["name"], "child(class:demo)");
      EXPECT_EQ(s.Attr("trace2.child.class"), "demo");
      EXPECT_EQ(s.Attr("trace2.child.exitcode"), "0");
      EXPECT_EQ(std::stoll(s.Attr("trace2.child.pid")) > 0, true);
      EXPECT_EQ(s.Attr("process.pid"),
                absl::StrCat(R"({"intValue":")", s.Attr("trace2.child.pid"), "\"}"));
      EXPECT_EQ(s.Attr("process.exit.code"), R"({"intValue":"0"})");
      EXPECT_EQ(s.raw["status"], json({{"code", 1}}));
      EXPECT_EQ(json::parse(s.Attr("trace2.child.argv"), nullptr, false)[1], "child");
      // The child process runs within the child span (1 ms of clock slack).
      EXPECT_GE(child.start + 1000000, s.start);
      EXPECT_LE(child.end, s.end + 1000000);
    }
    if (s.raw["name"] == "region(status,worktree)") {
      const json data = json::parse(s.Attr("trace2.region.data"), nullptr, false);
      EXPECT_EQ(data["status"]["summary"]["changed"], 2) << s.raw;
    }
    if (s.raw["name"] == "region(index,do_read_index)") {
      EXPECT_EQ(s.Attr("trace2.region.data"), "{\"index\":{\"read/cache_nr\":\"31\"}}");
      EXPECT_EQ(s.Attr("trace2.region.nesting"), "2");
      EXPECT_EQ(s.Attr("trace2.region.repoid"), "1");
      EXPECT_EQ(s.Attr("code.filepath"), "examples/demo/demo.cc");
      EXPECT_TRUE(
          std::regex_match(s.Attr("code.lineno"), std::regex(R"(\{"intValue":"[1-9][0-9]*"\})")));
      EXPECT_EQ(s.Attr("thread.name"), "main");
      // The kernel's thread id the runtime recorded (the demo's main thread: its pid).
      EXPECT_TRUE(
          std::regex_match(s.Attr("thread.id"), std::regex(R"(\{"intValue":"[1-9][0-9]*"\})")))
          << s.Attr("thread.id");
    }
  }
}

TEST(OtlpTest, DemoFile) { CheckDemo(Traces().demo_file); }

TEST(OtlpTest, DemoDirectory) { CheckDemo(Traces().demo_dir); }

void CheckProcessTree(const std::string& path) {
  const std::string text = Export(path);
  const std::vector<Span> spans = Parse(text);
  const std::map<std::string, const Span*> processes = CheckTree(spans, 3);
  ASSERT_EQ(processes.size(), 3u) << text;
  int children = 0;
  for (const Span& s : spans) {
    if (s.type() != "child") continue;
    ++children;
    EXPECT_EQ(s.raw["name"], "child(class:unknown)");
    EXPECT_EQ(s.Attr("trace2.child.exitcode"), "0");
  }
  EXPECT_EQ(children, 2);
  std::set<std::string> hierarchies;
  for (const auto& [sid, span] : processes) {
    EXPECT_EQ(span->raw["name"], "testtool:trace2");
    EXPECT_EQ(span->Attr("trace2.cmd.exit_code"), "0");
    hierarchies.insert(span->Attr("trace2.cmd.hierarchy"));
  }
  EXPECT_EQ(hierarchies,
            (std::set<std::string>{"trace2", "trace2/trace2", "trace2/trace2/trace2"}));
}

TEST(OtlpTest, ProcessTreeFile) { CheckProcessTree(Traces().tree_file); }

TEST(OtlpTest, ProcessTreeDirectory) { CheckProcessTree(Traces().tree_dir); }

}  // namespace
}  // namespace tracewire::testing
