#include "format/event_spec.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <vector>

namespace tracewire::format {
namespace {

constexpr ArgSpec Dt{"dt", ArgType::kDeltaTime};
constexpr ArgSpec SiteArg{"site", ArgType::kSite};
constexpr ArgSpec Gen{"gen", ArgType::kUint};
constexpr ArgSpec Len{"length", ArgType::kLength};

constexpr ArgSpec U(absl::string_view name) { return {name, ArgType::kUint}; }
constexpr ArgSpec I(absl::string_view name) { return {name, ArgType::kInt}; }
constexpr ArgSpec T(absl::string_view name) { return {name, ArgType::kTime}; }
constexpr ArgSpec D(absl::string_view name) { return {name, ArgType::kDuration}; }
constexpr ArgSpec S(absl::string_view name) { return {name, ArgType::kString}; }
constexpr ArgSpec L(absl::string_view name) { return {name, ArgType::kStringList}; }
constexpr ArgSpec K(absl::string_view name) { return {name, ArgType::kStack}; }
// An argument added to an existing row by format `version`.
constexpr ArgSpec Since(uint8_t version, ArgSpec arg) {
  arg.since = version;
  return arg;
}

// Options of a row besides its arguments.
struct RowOptions {
  Scope scope = Scope::kFrame;
  BodyKind body = BodyKind::kNone;
  bool has_data = false;
  bool is_stack = false;
  RangeRole range = RangeRole::kNone;
  EventType start_type = EventType::kNone;
  bool unwinds_regions = false;
};

// Appends an argument to a row; string and stack ID index lists follow the argument types.
constexpr void AddArg(EventSpec& spec, const ArgSpec& arg) {
  const uint8_t index = spec.num_args++;
  spec.args[index] = arg;
  if (arg.since == 0) spec.base_args = index + 1;
  if (arg.since > spec.newest_arg) spec.newest_arg = arg.since;
  if (arg.type == ArgType::kString || arg.type == ArgType::kStringList) {
    spec.string_ids[spec.num_string_ids++] = index;
  } else if (arg.type == ArgType::kStack) {
    spec.stack_ids[spec.num_stack_ids++] = index;
  }
}

// Builds a row; `timed` follows from a leading dt argument.
constexpr EventSpec Row(EventType type, absl::string_view name, absl::string_view trace2_event,
                        std::initializer_list<ArgSpec> args, RowOptions options = {}) {
  EventSpec spec;
  spec.type = type;
  spec.name = name;
  spec.trace2_event = trace2_event;
  for (const ArgSpec& arg : args) AddArg(spec, arg);
  spec.timed = spec.num_args > 0 && spec.args[0].type == ArgType::kDeltaTime;
  spec.scope = spec.timed ? Scope::kEventBody : options.scope;
  spec.has_data = options.has_data;
  spec.is_stack = options.is_stack;
  spec.body = options.body;
  spec.range = options.range;
  spec.start_type = options.start_type;
  spec.unwinds_regions = options.unwinds_regions;
  spec.experimental = IsExperimentalType(static_cast<uint8_t>(type));
  if (spec.has_data) {
    spec.max_data = type == EventType::kExperimentalBatch      ? kMaxBatchSize
                    : type == EventType::kCompressedGeneration ? kMaxGenerationSize
                                                               : kMaxRecordDataSize;
  }
  return spec;
}

// A timed Trace2 row: dt and site come first, then `rest`.
constexpr EventSpec Trace2(EventType type, absl::string_view name, absl::string_view trace2_event,
                           std::initializer_list<ArgSpec> rest, RowOptions options = {}) {
  EventSpec spec = Row(type, name, trace2_event, {Dt, SiteArg}, options);
  for (const ArgSpec& arg : rest) AddArg(spec, arg);
  return spec;
}

constexpr RowOptions kData{.has_data = true};
constexpr RowOptions kUnwinds{.unwinds_regions = true};

// The rows, in type order, and for each type number its row's position + 1 (0: none).
// Only the rows are stored: a table of 256 EventSpecs would be 67 KB, and a program pays
// for every page of it (filled at the first lookup, or relocated at every start if it
// were constant data, its names being pointers).
struct SpecTable {
  std::vector<EventSpec> rows;
  std::array<uint8_t, 256> position{};
};

SpecTable BuildTable() {
  using E = EventType;
  // Appended one by one into the table's own storage: as one array of rows this would be
  // a 13 KB temporary on the stack of the first traced call, a page fault per page.
  SpecTable table;
  std::vector<EventSpec>& rows = table.rows;
  rows.reserve(64);
  // Frames.
  rows.push_back(Row(E::kEventBatch, "event_batch", "", {Gen, U("thread"), T("base_time"), Len},
                     {.body = BodyKind::kEvents}));
  rows.push_back(
      Row(E::kStringBatch, "string_batch", "", {Gen, Len}, {.body = BodyKind::kStrings}));
  rows.push_back(Row(E::kStackBatch, "stack_batch", "", {Gen, Len}, {.body = BodyKind::kStacks}));
  rows.push_back(Row(E::kSiteBatch, "site_batch", "", {Gen, Len}, {.body = BodyKind::kSites}));
  rows.push_back(Row(E::kClockSync, "clock_sync", "",
                     {Gen, U("freq"), T("trace_time"), U("mono_ns"), U("wall_sec"), U("wall_nsec"),
                      I("utc_offset_sec")}));
  rows.push_back(Row(
      E::kProcessInfo, "process_info", "",
      {Gen, S("sid_string"), U("pid"), T("start_time"), S("name_string"), S("hierarchy_string")}));
  rows.push_back(Row(E::kEndOfGeneration, "end_of_generation", "", {Gen}));
  rows.push_back(Row(E::kExperimentalBatch, "experimental_batch", "",
                     {U("experiment"), Gen, U("thread"), T("base_time")}, kData));
  rows.push_back(
      Row(E::kCompressedGeneration, "compressed_generation", "", {Gen, U("raw_length")}, kData));
  // Table records.
  rows.push_back(
      Row(E::kString, "string", "", {U("id")}, {.scope = Scope::kStringBody, .has_data = true}));
  rows.push_back(Row(E::kStringPart, "string_part", "", {U("id")},
                     {.scope = Scope::kStringBody, .has_data = true}));
  rows.push_back(Row(E::kStack, "stack", "", {U("id"), U("nframes")},
                     {.scope = Scope::kStackBody, .is_stack = true}));
  rows.push_back(Row(
      E::kSite, "site", "",
      {U("id"), S("file_string"), U("line"), S("category_string"), S("label_string"), U("repo")},
      {.scope = Scope::kSiteBody}));
  rows.push_back(
      Row(E::kModule, "module", "",
          {U("id"), U("start"), U("end"), U("bias"), S("path_string"), S("build_id_string")},
          {.scope = Scope::kStackBody}));
  // Timed Trace2 events.
  rows.push_back(Trace2(E::kVersion, "version", "version", {S("exe_string")}));
  rows.push_back(Trace2(E::kTooManyFiles, "too_many_files", "too_many_files", {}));
  rows.push_back(Trace2(E::kStart, "start", "start", {L("argv_strlist")}));
  rows.push_back(Trace2(E::kExit, "exit", "exit", {I("code")}));
  rows.push_back(Trace2(E::kSignal, "signal", "signal", {U("signo")}));
  rows.push_back(Trace2(E::kAtexit, "atexit", "atexit", {I("code")}, kUnwinds));
  rows.push_back(Trace2(E::kError, "error", "error", {S("msg_string"), S("fmt_string")}));
  rows.push_back(Trace2(E::kCmdPath, "cmd_path", "cmd_path", {S("path_string")}));
  rows.push_back(Trace2(E::kCmdAncestry, "cmd_ancestry", "cmd_ancestry", {L("ancestry_strlist")}));
  rows.push_back(
      Trace2(E::kCmdName, "cmd_name", "cmd_name", {S("name_string"), S("hierarchy_string")}));
  rows.push_back(Trace2(E::kCmdMode, "cmd_mode", "cmd_mode", {S("mode_string")}));
  rows.push_back(Trace2(E::kAlias, "alias", "alias", {S("alias_string"), L("argv_strlist")}));
  rows.push_back(Trace2(E::kChildStart, "child_start", "child_start",
                        {U("child_id"), S("class_string"), S("hook_string"), S("cd_string"),
                         U("flags"), L("argv_strlist")},
                        {.range = RangeRole::kBegin}));
  rows.push_back(Trace2(E::kChildExit, "child_exit", "child_exit",
                        {U("child_id"), I("pid"), I("code"), D("elapsed")},
                        {.range = RangeRole::kEnd, .start_type = E::kChildStart}));
  rows.push_back(Trace2(E::kChildReady, "child_ready", "child_ready",
                        {U("child_id"), I("pid"), U("ready"), D("elapsed")}));
  rows.push_back(Trace2(E::kExec, "exec", "exec",
                        {U("exec_id"), S("exe_string"), L("argv_strlist")},
                        {.range = RangeRole::kBegin}));
  rows.push_back(Trace2(E::kExecResult, "exec_result", "exec_result", {U("exec_id"), I("code")},
                        {.range = RangeRole::kEnd, .start_type = E::kExec}));
  rows.push_back(Trace2(E::kThreadStart, "thread_start", "thread_start",
                        {S("name_string"), Since(kThreadIdVersion, U("tid"))},
                        {.range = RangeRole::kBegin}));
  rows.push_back(
      Trace2(E::kThreadExit, "thread_exit", "thread_exit", {},
             {.range = RangeRole::kEnd, .start_type = E::kThreadStart, .unwinds_regions = true}));
  rows.push_back(Trace2(E::kDefParam, "def_param", "def_param",
                        {S("scope_string"), S("param_string"), S("value_string")}));
  rows.push_back(Trace2(E::kDefRepo, "def_repo", "def_repo", {U("repo_id"), S("worktree_string")}));
  rows.push_back(Trace2(E::kRegionEnter, "region_enter", "region_enter", {S("msg_string")},
                        {.range = RangeRole::kBegin}));
  rows.push_back(Trace2(E::kRegionLeave, "region_leave", "region_leave", {S("msg_string")},
                        {.range = RangeRole::kEnd, .start_type = E::kRegionEnter}));
  rows.push_back(Trace2(E::kData, "data", "data", {S("value_string")}));
  rows.push_back(Trace2(E::kDataInt, "data_int", "data", {I("value")}));
  rows.push_back(Trace2(E::kDataJson, "data_json", "data_json", {S("json_string")}));
  rows.push_back(Trace2(E::kPrintf, "printf", "printf", {S("msg_string")}));
  rows.push_back(Trace2(E::kThTimer, "th_timer", "th_timer",
                        {U("intervals"), D("total"), D("min"), D("max")}, kUnwinds));
  rows.push_back(Trace2(E::kTimer, "timer", "timer",
                        {U("intervals"), D("total"), D("min"), D("max")}, kUnwinds));
  rows.push_back(Trace2(E::kThCounter, "th_counter", "th_counter", {U("value")}, kUnwinds));
  rows.push_back(Trace2(E::kCounter, "counter", "counter", {U("value")}, kUnwinds));
  rows.push_back(Row(E::kThreadStatus, "thread_status", "",
                     {Dt, S("name_string"), T("start_time"), Since(kThreadIdVersion, U("tid"))},
                     {.range = RangeRole::kActive, .start_type = E::kThreadStart}));
  rows.push_back(Row(E::kRegionActive, "region_active", "",
                     {Dt, SiteArg, S("msg_string"), T("enter_time")},
                     {.range = RangeRole::kActive, .start_type = E::kRegionEnter}));
  rows.push_back(Row(E::kStackRef, "stack_ref", "", {Dt, K("stack")}));
  // Tasks and gauges: events of tracewire's own, named like rows so the reader surfaces
  // them beside the Trace2 events.
  rows.push_back(Trace2(E::kTaskBegin, "task_begin", "task_begin", {U("task"), U("parent")},
                        {.range = RangeRole::kBegin}));
  rows.push_back(Trace2(E::kTaskEnd, "task_end", "task_end", {U("task")},
                        {.range = RangeRole::kEnd, .start_type = E::kTaskBegin}));
  rows.push_back(Trace2(E::kTaskAdopt, "task_adopt", "task_adopt", {U("task")}));
  rows.push_back(Trace2(E::kTaskRelease, "task_release", "task_release", {U("task")}));
  rows.push_back(Trace2(E::kGauge, "gauge", "gauge", {I("value"), S("unit_string")}));
  rows.push_back(Row(E::kTaskActive, "task_active", "",
                     {Dt, SiteArg, U("task"), U("parent"), T("begin_time")},
                     {.range = RangeRole::kActive, .start_type = E::kTaskBegin}));
  rows.push_back(Row(E::kTaskAdopted, "task_adopted", "", {Dt, U("task")}));
  rows.push_back(Row(E::kCpuSample, "cpu_sample", "", {Dt, K("stack"), U("weight")}));
  rows.push_back(Row(E::kCpuSamplesLost, "cpu_samples_lost", "", {Dt, U("count")}));
  // Experimental events.
  rows.push_back(Row(E::kExpMark, "exp_mark", "", {Dt}, kData));
  std::sort(table.rows.begin(), table.rows.end(), [](const EventSpec& a, const EventSpec& b) {
    return static_cast<uint8_t>(a.type) < static_cast<uint8_t>(b.type);
  });
  for (size_t i = 0; i < table.rows.size(); ++i) {
    table.position[static_cast<uint8_t>(table.rows[i].type)] = static_cast<uint8_t>(i + 1);
  }
  return table;
}

// Built at the first lookup, so a program that never traces never touches it.
const SpecTable& Table() {
  static const SpecTable table = BuildTable();
  return table;
}

}  // namespace

int EventSpec::ArgIndex(absl::string_view arg_name) const {
  for (int i = 0; i < num_args; ++i) {
    if (args[i].name == arg_name) return i;
  }
  return -1;
}

const EventSpec* LookupSpec(EventType type) {
  const SpecTable& table = Table();
  const uint8_t position = table.position[static_cast<uint8_t>(type)];
  return position == 0 ? nullptr : &table.rows[position - 1];
}

absl::Span<const EventSpec> AllSpecs() { return Table().rows; }

const absl::flat_hash_map<absl::string_view, EventType>& EventNames() {
  static const auto* names = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, EventType>();
    for (const EventSpec& spec : Table().rows) map->emplace(spec.name, spec.type);
    return map;
  }();
  return *names;
}

const EventSpec* LookupSpecByName(absl::string_view name) {
  const auto& names = EventNames();
  auto it = names.find(name);
  return it == names.end() ? nullptr : LookupSpec(it->second);
}

const EventSpec* LookupTrace2Event(absl::string_view trace2_event) {
  const EventSpec* spec = LookupSpecByName(trace2_event);
  if (spec == nullptr || spec->trace2_event.empty() || spec->trace2_event != spec->name) {
    return nullptr;
  }
  return spec;
}

absl::string_view ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kFrame:
      return "top level";
    case Scope::kEventBody:
      return "event batch body";
    case Scope::kStringBody:
      return "string batch body";
    case Scope::kStackBody:
      return "stack batch body";
    case Scope::kSiteBody:
      return "site batch body";
  }
  return "unknown scope";
}

Scope BodyScope(BodyKind body) {
  switch (body) {
    case BodyKind::kEvents:
      return Scope::kEventBody;
    case BodyKind::kStrings:
      return Scope::kStringBody;
    case BodyKind::kStacks:
      return Scope::kStackBody;
    case BodyKind::kSites:
      return Scope::kSiteBody;
    case BodyKind::kNone:
      break;
  }
  return Scope::kFrame;
}

}  // namespace tracewire::format
