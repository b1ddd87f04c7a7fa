// The viewers' arguments agree: for every event kind, the instants the Chrome and Perfetto
// exports write for one event of the kind (all its optional fields set) carry the same
// names, categories and argument keys, and those keys are the kind's row of the shared
// mapping (reader/targets/viewer_args.h). A kind added to one export and not the other, or
// shown as an instant with arguments the mapping does not list, fails here. CPU samples are
// shown once (Chrome's profile, Perfetto's PerfSample packets), never as instants, and the
// lost-sample count is an instant's `count` in both.
#include "reader/targets/viewer_args.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reader/event.h"
#include "reader/targets/formatter.h"
#include "tests/perfetto/perfetto_checker.h"
#include "tests/targets/event_fixture.h"

namespace tracewire::testing {
namespace {

using reader::Event;
using reader::EventKind;

// name -> (category, argument keys) of a format's instants.
using Instants = std::map<std::string, std::pair<std::string, std::set<std::string>>>;

const reader::SymbolFrame kFrames[] = {{.pc = 0x1000, .func = "leaf"},
                                       {.pc = 0x2000, .func = "main"}};

// One event of `kind` with every field a viewer may show set.
Event FullEvent(EventKind kind) {
  Event e = Ev(kind);
  e.msg = "message";
  e.fmt = "format %s";
  e.exe = "/usr/bin/git";
  e.argv = {"git", "status"};
  e.code = 3;
  e.signo = 9;
  e.cmd_path = "/usr/bin/git";
  e.ancestry = {"bash", "sshd"};
  e.cmd_name = "status";
  e.cmd_hierarchy = "status";
  e.cmd_mode = "mode";
  e.alias = "st";
  e.child_id = 4;
  e.pid = 1234;
  e.ready = "ready";
  e.exec_id = 5;
  e.exec_exe = "/bin/ls";
  e.param_scope = "global";
  e.param = "core.editor";
  e.param_value = "vi";
  e.repo = 1;
  e.worktree = "/src";
  e.category = "cat";
  e.label = "label";
  e.value_string = "v";
  e.count = 7;
  e.wire_type = 200;
  e.experimental_data = "xy";
  if (kind == EventKind::kCpuSample) e.stack = kFrames;
  return e;
}

Instants ChromeInstants(const std::string& text) {
  Instants instants;
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << text;
  if (doc.is_discarded()) return instants;
  for (const nlohmann::json& event : doc["traceEvents"]) {
    if (event.value("ph", "") != "i") continue;
    std::set<std::string> keys;
    for (auto& [key, value] : event["args"].items()) keys.insert(key);
    instants[event.value("name", "")] = {event.value("cat", ""), keys};
  }
  return instants;
}

Instants PerfettoInstants(const std::string& bytes) {
  Instants instants;
  const CheckedTrace trace = CheckPerfettoTrace(bytes);
  EXPECT_TRUE(trace.problems.empty()) << absl::StrJoin(trace.problems, "\n");
  for (const CheckedInstant& instant : trace.instants) {
    std::set<std::string> keys;
    for (const auto& [key, value] : instant.args) keys.insert(key);
    instants[instant.name] = {instant.category, keys};
  }
  return instants;
}

TEST(ViewerArgsTest, EveryKindShowsTheSameArgumentsInChromeAndPerfetto) {
  targets::FormatterOptions options;
  size_t kinds_as_instants = 0;
  for (size_t k = 0; k < reader::kNumEventKinds; ++k) {
    const EventKind kind = static_cast<EventKind>(k);
    SCOPED_TRACE(reader::EventKindName(kind));
    const Event e = FullEvent(kind);
    const Instants chrome = ChromeInstants(Format("chrome", options, e));
    const Instants perfetto = PerfettoInstants(Format("perfetto", options, e));
    EXPECT_EQ(chrome, perfetto);
    const targets::InstantStyle style = targets::InstantStyleOf(e);
    auto it = chrome.find(std::string(style.name));
    if (it == chrome.end()) {
      // Not an instant (a slice, counter, gauge or sample): the mapping has no row for it.
      EXPECT_TRUE(targets::ViewerArgsOf(kind).empty());
      continue;
    }
    ++kinds_as_instants;
    EXPECT_EQ(it->second.first, style.category);
    std::set<std::string> expected;
    for (const targets::ViewerArg& arg : targets::ViewerArgsOf(kind)) {
      expected.insert(std::string(targets::ArgNameText(arg.name)));
    }
    EXPECT_EQ(it->second.second, expected);
  }
  // The Trace2 events shown as instants and the experimental record, at least.
  EXPECT_GE(kinds_as_instants, 20u);
}

TEST(ViewerArgsTest, CpuSamplesAreShownOnceAndLostSamplesCounted) {
  targets::FormatterOptions options;
  const Event sample = FullEvent(EventKind::kCpuSample);
  EXPECT_EQ(ChromeInstants(Format("chrome", options, sample)).count("cpu_sample"), 0u);
  EXPECT_EQ(PerfettoInstants(Format("perfetto", options, sample)).count("cpu_sample"), 0u);
  const CheckedTrace trace = CheckPerfettoTrace(Format("perfetto", options, sample));
  size_t samples = 0;
  for (const auto& [thread, count] : trace.samples_by_thread) samples += count;
  // One sample event, shown as its weight in PerfSample packets (PerfSample has no weight
  // field) and nothing else.
  ASSERT_GE(sample.count, 1u);
  EXPECT_EQ(samples, std::min<uint64_t>(sample.count, 64));

  const Event lost = FullEvent(EventKind::kCpuSamplesLost);
  const CheckedTrace lost_trace = CheckPerfettoTrace(Format("perfetto", options, lost));
  ASSERT_EQ(lost_trace.instants.size(), 1u);
  EXPECT_EQ(lost_trace.instants[0].name, "cpu_samples_lost");
  EXPECT_EQ(lost_trace.instants[0].args.at("count"), "7");
  const nlohmann::json chrome =
      nlohmann::json::parse(Format("chrome", options, lost), nullptr, false);
  bool found = false;
  for (const nlohmann::json& event : chrome["traceEvents"]) {
    if (event.value("name", "") != "cpu_samples_lost") continue;
    found = true;
    EXPECT_EQ(event["args"]["count"], 7);
  }
  EXPECT_TRUE(found);
}

// Every argument the mapping reads from an Event member reads one the kind's wire row binds
// (reader/event_fields.h), or a field every event carries (its thread, its repo).
TEST(ViewerArgsTest, MappedMembersAreBoundByTheKindsRow) {
  for (size_t k = 0; k < reader::kNumEventKinds; ++k) {
    const EventKind kind = static_cast<EventKind>(k);
    SCOPED_TRACE(reader::EventKindName(kind));
    const std::vector<reader::FieldBinding>* bindings = reader::KindFieldBindings(kind);
    for (const targets::ViewerArg& arg : targets::ViewerArgsOf(kind)) {
      if (arg.source != targets::ArgSource::kMember) continue;
      if (arg.member == reader::EventMember(&Event::thread_name) ||
          arg.member == reader::EventMember(&Event::repo)) {
        continue;
      }
      bool bound = false;
      if (bindings != nullptr) {
        for (const reader::FieldBinding& binding : *bindings) {
          bound = bound || binding.member == arg.member;
        }
      }
      EXPECT_TRUE(bound) << targets::ArgNameText(arg.name);
    }
  }
}

// The names are written as JSON keys without an escape check (JsonKey::KnownPlain).
TEST(ViewerArgsTest, NamesNeedNoJsonEscape) {
  for (size_t n = 0; n < static_cast<size_t>(targets::ArgName::kNumArgNames); ++n) {
    const absl::string_view name = targets::ArgNameText(static_cast<targets::ArgName>(n));
    EXPECT_FALSE(name.empty());
    for (const char c : name) {
      EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\') << name;
    }
  }
}

}  // namespace
}  // namespace tracewire::testing
