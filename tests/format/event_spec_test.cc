// Self-check of the EventSpec table: the invariants every reader and writer relies on.
#include "format/event_spec.h"

#include <set>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

bool Contains(absl::Span<const uint8_t> indices, int index) {
  for (uint8_t i : indices) {
    if (i == index) return true;
  }
  return false;
}

TEST(EventSpecTest, LookupCoversExactlyTheRows) {
  std::set<int> row_types;
  int previous = -1;
  for (const EventSpec& spec : AllSpecs()) {
    const int type = static_cast<int>(spec.type);
    EXPECT_GT(type, previous) << "AllSpecs() is ordered by type number";
    previous = type;
    row_types.insert(type);
  }
  for (int t = 0; t < 256; ++t) {
    const EventSpec* spec = LookupSpec(static_cast<uint8_t>(t));
    if (row_types.count(t) == 0) {
      EXPECT_EQ(spec, nullptr) << t;
      continue;
    }
    ASSERT_NE(spec, nullptr) << t;
    EXPECT_EQ(static_cast<int>(spec->type), t);
    EXPECT_EQ(LookupSpec(static_cast<EventType>(t)), spec);
  }
  EXPECT_EQ(LookupSpec(uint8_t{0}), nullptr);
}

TEST(EventSpecTest, EveryRowNameRoundTrips) {
  EXPECT_EQ(EventNames().size(), AllSpecs().size()) << "one entry per row, names unique";
  for (const EventSpec& spec : AllSpecs()) {
    SCOPED_TRACE(std::string(spec.name));
    auto it = EventNames().find(spec.name);
    ASSERT_NE(it, EventNames().end());
    EXPECT_EQ(it->second, spec.type);
    EXPECT_EQ(LookupSpecByName(spec.name), LookupSpec(spec.type));
    if (spec.trace2_event.empty()) {
      EXPECT_EQ(LookupTrace2Event(spec.name), nullptr) << "structural rows are no Trace2 event";
      continue;
    }
    // Every Trace2 event name leads to a row that writes that event.
    const EventSpec* written = LookupTrace2Event(spec.trace2_event);
    ASSERT_NE(written, nullptr) << spec.trace2_event;
    EXPECT_EQ(written->trace2_event, spec.trace2_event);
    EXPECT_EQ(written->name, spec.trace2_event);
  }
  EXPECT_EQ(LookupSpecByName("no_such_event"), nullptr);
  EXPECT_EQ(LookupSpecByName(""), nullptr);
  EXPECT_EQ(LookupTrace2Event("data_int"), nullptr);  // a row name, not a Trace2 event
  EXPECT_EQ(LookupTrace2Event("data")->type, EventType::kData);
  EXPECT_EQ(LookupSpecByName("data_int")->type, EventType::kDataInt);
}

TEST(EventSpecTest, EveryRowIsConsistent) {
  std::set<std::string> names;
  for (int t = 0; t < 256; ++t) {
    const EventSpec* spec = LookupSpec(static_cast<uint8_t>(t));
    if (spec == nullptr) continue;
    const EventSpec& s = *spec;
    SCOPED_TRACE(std::string(s.name));
    EXPECT_FALSE(s.name.empty());
    EXPECT_TRUE(names.insert(std::string(s.name)).second) << "duplicate name";
    ASSERT_LE(s.num_args, kMaxArgs);
    EXPECT_LE(s.num_string_ids, s.num_args);
    EXPECT_LE(s.num_stack_ids, s.num_args);

    std::set<std::string> arg_names;
    for (int i = 0; i < s.num_args; ++i) {
      const ArgSpec& arg = s.args[i];
      SCOPED_TRACE(std::string(arg.name));
      EXPECT_TRUE(arg_names.insert(std::string(arg.name)).second) << "duplicate argument";
      EXPECT_EQ(s.ArgIndex(arg.name), i);
      const bool string_name =
          absl::EndsWith(arg.name, "_string") || absl::EndsWith(arg.name, "_strlist");
      const bool string_type = arg.type == ArgType::kString || arg.type == ArgType::kStringList;
      EXPECT_EQ(string_name, string_type);
      if (absl::EndsWith(arg.name, "_string")) {
        EXPECT_EQ(arg.type, ArgType::kString);
      }
      if (absl::EndsWith(arg.name, "_strlist")) {
        EXPECT_EQ(arg.type, ArgType::kStringList);
      }
      EXPECT_EQ(Contains(s.StringIds(), i), string_type);
      const bool stack_type = arg.type == ArgType::kStack;
      EXPECT_EQ(stack_type, arg.name == "stack");
      EXPECT_EQ(Contains(s.StackIds(), i), stack_type);
      EXPECT_EQ(arg.type == ArgType::kDeltaTime, i == 0 && s.timed) << "dt only first, timed";
      EXPECT_EQ(arg.type == ArgType::kLength, arg.name == "length");
      EXPECT_EQ(arg.type == ArgType::kSite, arg.name == "site");
    }
    EXPECT_EQ(s.ArgIndex("no_such_argument"), -1);
    // The index lists point at the right arguments.
    for (uint8_t i : s.StringIds()) {
      ASSERT_LT(i, s.num_args);
      EXPECT_TRUE(s.args[i].type == ArgType::kString || s.args[i].type == ArgType::kStringList);
    }
    for (uint8_t i : s.StackIds()) {
      ASSERT_LT(i, s.num_args);
      EXPECT_EQ(s.args[i].type, ArgType::kStack);
    }

    if (s.timed) {
      ASSERT_GE(s.num_args, 1);
      EXPECT_EQ(s.args[0].name, "dt");
      EXPECT_EQ(s.args[0].type, ArgType::kDeltaTime);
      EXPECT_EQ(s.scope, Scope::kEventBody);
      EXPECT_EQ(s.body, BodyKind::kNone);
      EXPECT_FALSE(s.is_stack);
    } else {
      EXPECT_EQ(s.ArgIndex("dt"), -1);
      EXPECT_NE(s.scope, Scope::kEventBody);
      EXPECT_TRUE(s.trace2_event.empty()) << "only timed rows map to Trace2 events";
      EXPECT_EQ(s.range, RangeRole::kNone);
    }

    EXPECT_EQ(s.experimental, t >= kFirstExperimentalType);
    EXPECT_EQ(s.experimental, IsExperimentalType(static_cast<uint8_t>(t)));
    if (s.experimental) {
      EXPECT_TRUE(s.timed);
      EXPECT_TRUE(s.has_data);
    }

    if (s.body != BodyKind::kNone) {
      EXPECT_EQ(s.scope, Scope::kFrame);
      const int length = s.ArgIndex("length");
      ASSERT_GE(length, 0);
      EXPECT_EQ(length, s.num_args - 1) << "length is the last header argument";
      EXPECT_EQ(s.args[length].type, ArgType::kLength);
      EXPECT_GE(s.ArgIndex("gen"), 0);
      EXPECT_FALSE(s.has_data);
    } else {
      EXPECT_EQ(s.ArgIndex("length"), -1);
    }
    if (s.scope == Scope::kFrame) {
      EXPECT_GE(s.ArgIndex("gen"), 0) << "every frame names its generation";
    }

    if (s.has_data) {
      EXPECT_GT(s.max_data, 0u);
    } else {
      EXPECT_EQ(s.max_data, 0u);
    }
    EXPECT_LE(s.max_data, kMaxGenerationSize);
    if (s.scope != Scope::kFrame && s.has_data) {
      EXPECT_LE(s.max_data, kMaxRecordDataSize);
    }

    if (s.is_stack) {
      EXPECT_EQ(s.scope, Scope::kStackBody);
      EXPECT_GE(s.ArgIndex("nframes"), 0);
    }

    switch (s.range) {
      case RangeRole::kNone:
      case RangeRole::kBegin:
        EXPECT_EQ(s.start_type, EventType::kNone);
        break;
      case RangeRole::kEnd:
      case RangeRole::kActive: {
        const EventSpec* begin = LookupSpec(s.start_type);
        ASSERT_NE(begin, nullptr);
        EXPECT_EQ(begin->range, RangeRole::kBegin);
        break;
      }
    }
  }
}

TEST(EventSpecTest, EveryBeginHasAnEnd) {
  for (const EventSpec& begin : AllSpecs()) {
    if (begin.range != RangeRole::kBegin) continue;
    int ends = 0;
    for (const EventSpec& end : AllSpecs()) {
      if (end.range == RangeRole::kEnd && end.start_type == begin.type) ++ends;
    }
    EXPECT_GE(ends, 1) << begin.name;
  }
}

// git's tr2tls_pop_unwind_self: exactly these Trace2 events close the thread's open
// regions first; only timed Trace2 rows carry the column.
TEST(EventSpecTest, UnwindingRowsAreGitsUnwindingEvents) {
  std::set<std::string> unwinding;
  for (const EventSpec& spec : AllSpecs()) {
    if (!spec.unwinds_regions) continue;
    unwinding.insert(std::string(spec.name));
    EXPECT_TRUE(spec.timed) << spec.name;
    EXPECT_FALSE(spec.trace2_event.empty()) << spec.name;
  }
  EXPECT_EQ(unwinding, (std::set<std::string>{"atexit", "counter", "th_counter", "th_timer",
                                              "thread_exit", "timer"}));
}

TEST(EventSpecTest, ScopesAndBodies) {
  int body_rows = 0;
  for (const EventSpec& s : AllSpecs()) {
    if (s.body == BodyKind::kNone) continue;
    ++body_rows;
    // Each body kind holds records of exactly one scope, and some row lives in it.
    const Scope scope = BodyScope(s.body);
    EXPECT_NE(scope, Scope::kFrame);
    bool any = false;
    for (const EventSpec& r : AllSpecs()) any |= r.scope == scope;
    EXPECT_TRUE(any) << s.name;
  }
  EXPECT_EQ(body_rows, 4);
  EXPECT_EQ(BodyScope(BodyKind::kNone), Scope::kFrame);
  EXPECT_EQ(ScopeName(Scope::kFrame), "top level");
  EXPECT_EQ(ScopeName(Scope::kEventBody), "event batch body");
}

TEST(EventSpecTest, EveryTrace2EventKindHasATimedRow) {
  const char* kTrace2Events[] = {
      "version",  "too_many_files", "start",        "exit",         "atexit",
      "signal",   "error",          "cmd_path",     "cmd_ancestry", "cmd_name",
      "cmd_mode", "alias",          "child_start",  "child_exit",   "child_ready",
      "exec",     "exec_result",    "thread_start", "thread_exit",  "def_param",
      "def_repo", "region_enter",   "region_leave", "data",         "data_json",
      "th_timer", "timer",          "th_counter",   "counter",      "printf",
      // tracewire's own events (format version 3): no Trace2 equivalent.
      "task_begin", "task_end", "task_adopt", "task_release", "gauge",
  };
  std::set<std::string> covered;
  for (const EventSpec& s : AllSpecs()) {
    if (s.trace2_event.empty()) continue;
    EXPECT_TRUE(s.timed) << s.name;
    EXPECT_GE(s.ArgIndex("site"), 0) << s.name;
    covered.insert(std::string(s.trace2_event));
  }
  for (const char* event : kTrace2Events) {
    EXPECT_EQ(covered.count(event), 1u) << event;
  }
  EXPECT_EQ(covered.size(), std::size(kTrace2Events)) << "a row maps to an unknown event";
  // data_int is the only row whose name differs from its Trace2 event.
  for (const EventSpec& s : AllSpecs()) {
    if (s.trace2_event.empty() || s.trace2_event == s.name) continue;
    EXPECT_EQ(s.name, "data_int");
    EXPECT_EQ(s.trace2_event, "data");
  }
}

TEST(EventSpecTest, WireNumbersAreStable) {
  // A change here changes the wire format: bump kFormatVersion and docs/format.md.
  EXPECT_EQ(LookupSpec(EventType::kEventBatch)->name, "event_batch");
  EXPECT_EQ(static_cast<int>(EventType::kCompressedGeneration), 9);
  EXPECT_EQ(static_cast<int>(EventType::kString), 10);
  EXPECT_EQ(static_cast<int>(EventType::kVersion), 16);
  EXPECT_EQ(static_cast<int>(EventType::kStackRef), 49);
  EXPECT_EQ(static_cast<int>(EventType::kExpMark), 128);
  EXPECT_EQ(static_cast<int>(EventType::kModule), 14);          // format version 2
  EXPECT_EQ(static_cast<int>(EventType::kTaskBegin), 50);       // format version 3
  EXPECT_EQ(static_cast<int>(EventType::kTaskAdopted), 56);     // format version 3
  EXPECT_EQ(static_cast<int>(EventType::kCpuSample), 60);       // format version 3
  EXPECT_EQ(static_cast<int>(EventType::kCpuSamplesLost), 61);  // format version 3
  EXPECT_EQ(AllSpecs().size(), 58u);
  const EventSpec* enter = LookupSpec(EventType::kRegionEnter);
  ASSERT_EQ(enter->num_args, 3);
  EXPECT_EQ(enter->args[1].name, "site");
  EXPECT_EQ(enter->args[2].name, "msg_string");
  // Format version 4: the kernel thread id at the end of the thread records.
  for (EventType type : {EventType::kThreadStart, EventType::kThreadStatus}) {
    const EventSpec* spec = LookupSpec(type);
    ASSERT_EQ(spec->num_args, 4) << spec->name;
    EXPECT_EQ(spec->args[3].name, "tid");
    EXPECT_EQ(spec->args[3].since, kThreadIdVersion);
    EXPECT_EQ(spec->NumArgsIn(3), 3) << spec->name;
    EXPECT_EQ(spec->NumArgsIn(kFormatVersion), 4) << spec->name;
  }
}

TEST(EventSpecTest, ArgumentsAddedLaterTrailTheirRow) {
  // A record of an older version is a prefix of the row: arguments a version added come
  // after every argument of the versions before it, and no version is newer than the format.
  for (const EventSpec& s : AllSpecs()) {
    uint8_t since = 0;
    for (const ArgSpec& arg : s.Args()) {
      EXPECT_GE(arg.since, since) << s.name << " " << arg.name;
      EXPECT_LE(arg.since, kFormatVersion) << s.name << " " << arg.name;
      since = arg.since;
    }
    EXPECT_EQ(s.NumArgsIn(0), s.base_args) << s.name;
    EXPECT_EQ(s.NumArgsIn(kFormatVersion), s.num_args) << s.name;
    EXPECT_EQ(s.newest_arg, since) << s.name;
    for (uint8_t i = s.base_args; i < s.num_args; ++i) {
      // Only plain values: a later argument a reader takes as 0 must mean "not recorded".
      EXPECT_EQ(s.args[i].type, ArgType::kUint) << s.name << " " << s.args[i].name;
    }
  }
}

}  // namespace
}  // namespace tracewire::format
