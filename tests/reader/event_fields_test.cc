// The field bindings of reader::Event against the EventSpec table: every Trace2 row has
// bindings, every binding names an argument of its row whose type converts into the bound
// member, and the payload visitor walks a kind's labelled fields in order.
#include "reader/event_fields.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "format/event_spec.h"
#include "gtest/gtest.h"
#include "reader/event.h"

namespace tracewire::reader {
namespace {

bool IsTrace2Row(const format::EventSpec& spec) {
  return spec.timed && !spec.experimental && !spec.trace2_event.empty();
}

// The rows of the kinds that are not Trace2 events (the CPU profile's).
bool IsProfileRow(const format::EventSpec& spec) {
  return spec.type == format::EventType::kCpuSample ||
         spec.type == format::EventType::kCpuSamplesLost;
}

TEST(EventFieldsTest, EveryTrace2RowHasBindings) {
  for (const format::EventSpec& spec : format::AllSpecs()) {
    EXPECT_EQ(FieldBindings(spec.type) != nullptr, IsTrace2Row(spec) || IsProfileRow(spec))
        << spec.name;
  }
}

TEST(EventFieldsTest, EveryBindingConvertsAnArgumentOfItsRow) {
  for (const format::EventSpec& spec : format::AllSpecs()) {
    const std::vector<FieldBinding>* bindings = FieldBindings(spec.type);
    if (bindings == nullptr) continue;
    std::set<std::string> args;
    for (const FieldBinding& binding : *bindings) {
      if (binding.arg.empty()) {
        EXPECT_FALSE(binding.label.empty()) << spec.name << ": a semantic field must be printed";
        continue;
      }
      EXPECT_TRUE(args.insert(std::string(binding.arg)).second)
          << spec.name << ": " << binding.arg << " bound twice";
      const int index = spec.ArgIndex(binding.arg);
      // After dt and site (Trace2 rows), after dt (the profile's rows, which have no site).
      ASSERT_GE(index, IsProfileRow(spec) ? 1 : 2)
          << spec.name << ": " << binding.arg << " is not a payload argument";
      EXPECT_NE(ConversionOf(spec.args[index].type, binding.member), FieldConversion::kNone)
          << spec.name << ": " << binding.arg;
    }
  }
}

TEST(EventFieldsTest, ConversionsFollowArgumentAndMemberTypes) {
  using format::ArgType;
  EXPECT_EQ(ConversionOf(ArgType::kString, &Event::exe), FieldConversion::kString);
  EXPECT_EQ(ConversionOf(ArgType::kString, &Event::fmt), FieldConversion::kOptString);
  EXPECT_EQ(ConversionOf(ArgType::kStringList, &Event::argv), FieldConversion::kStringList);
  EXPECT_EQ(ConversionOf(ArgType::kInt, &Event::code), FieldConversion::kZigzag);
  EXPECT_EQ(ConversionOf(ArgType::kUint, &Event::count), FieldConversion::kUint);
  EXPECT_EQ(ConversionOf(ArgType::kUint, &Event::repo), FieldConversion::kUintToOptInt);
  EXPECT_EQ(ConversionOf(ArgType::kDuration, &Event::t_total), FieldConversion::kSeconds);
  EXPECT_EQ(ConversionOf(ArgType::kDuration, &Event::t_rel), FieldConversion::kOptSeconds);
  EXPECT_EQ(ConversionOf(ArgType::kUint, &Event::exe), FieldConversion::kNone);
  EXPECT_EQ(ConversionOf(ArgType::kString, &Event::argv), FieldConversion::kNone);
  EXPECT_EQ(ConversionOf(ArgType::kInt, &Event::count), FieldConversion::kNone);
}

TEST(EventFieldsTest, EveryTrace2KindHasPayloadFieldsButExperimental) {
  for (size_t k = 0; k + 1 < kNumEventKinds; ++k) {
    EXPECT_NE(KindFieldBindings(EventKind(k)), nullptr) << EventKindName(EventKind(k));
  }
  EXPECT_EQ(KindFieldBindings(EventKind::kExperimental), nullptr);
}

std::vector<std::pair<std::string, std::string>> Visit(const Event& e) {
  std::vector<std::pair<std::string, std::string>> fields;
  VisitPayload(e, [&fields](absl::string_view label, const auto& value) {
    using T = std::decay_t<decltype(value)>;
    std::string text;
    if constexpr (std::is_same_v<T, absl::string_view> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, uint64_t> || std::is_same_v<T, double>) {
      text = absl::StrCat(value);
    } else {
      text = "?";
    }
    fields.emplace_back(std::string(label), text);
  });
  return fields;
}

TEST(EventFieldsTest, VisitPayloadWalksTheLabelledFieldsInOrder) {
  Event e;
  e.kind = EventKind::kChildExit;
  e.child_id = 3;
  e.pid = 1234;
  e.code = -1;
  e.t_rel = 0.5;  // a common field: not visited
  EXPECT_EQ(Visit(e), (std::vector<std::pair<std::string, std::string>>{
                          {"child_id", "3"}, {"pid", "1234"}, {"code", "-1"}}));
  e.kind = EventKind::kTimer;
  e.intervals = 2;
  e.t_total = 1.5;
  e.t_min = 0.5;
  e.t_max = 1;
  EXPECT_EQ(Visit(e), (std::vector<std::pair<std::string, std::string>>{
                          {"intervals", "2"}, {"total", "1.5"}, {"min", "0.5"}, {"max", "1"}}));
  e.kind = EventKind::kTooManyFiles;
  EXPECT_TRUE(Visit(e).empty());
  e.kind = EventKind::kExperimental;
  EXPECT_TRUE(Visit(e).empty());
}

TEST(EventFieldsTest, UnwindingKindsFollowTheEventSpecColumn) {
  std::set<std::string> unwinding;
  for (size_t k = 0; k < kNumEventKinds; ++k) {
    if (KindUnwindsRegions(EventKind(k))) {
      unwinding.insert(std::string(EventKindName(EventKind(k))));
    }
  }
  EXPECT_EQ(unwinding, (std::set<std::string>{"atexit", "counter", "th_counter", "th_timer",
                                              "thread_exit", "timer"}));
}

}  // namespace
}  // namespace tracewire::reader
