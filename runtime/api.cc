// The C API of tracewire.h on top of the recorder.
// tw_initialize_with_sized_fl is defined here: tracewire.h declares it without the weak
// reference programs use.
#define TRACEWIRE_RUNTIME_BUILD
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "format/varint.h"
#include "runtime/ancestry.h"
#include "runtime/config_params.h"
#include "runtime/emit.h"
#include "runtime/flight_recorder.h"
#include "runtime/lifecycle.h"
#include "runtime/recorder.h"
#include "runtime/redact.h"
#include "runtime/region_at_callsite.h"
#include "runtime/settings_file.h"
#include "runtime/startup_path.h"
#include "runtime/text.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {

using format::EventType;
using format::ZigzagEncode;

uint64_t ArgvString(ThreadState* ts, const char* const* argv, bool redact) {
  std::string& list = ts->scratch;
  list.clear();
  for (; argv != nullptr && *argv != nullptr; ++argv) {
    if (redact) {
      AppendRedacted(*argv, &list);
    } else {
      list.append(*argv);
    }
    list.push_back('\0');
  }
  return UniqueString(ts, list);
}

uint64_t FormattedString(ThreadState* ts, const char* fmt, va_list ap) {
  std::string& out = ts->scratch;
  va_list copy;
  va_copy(copy, ap);
  out.resize(out.capacity() == 0 ? 256 : out.capacity());
  int n = vsnprintf(out.data(), out.size() + 1, fmt, copy);
  va_end(copy);
  if (n < 0) n = 0;
  if (static_cast<size_t>(n) > out.size()) {
    out.resize(n);
    vsnprintf(out.data(), out.size() + 1, fmt, ap);
  }
  out.resize(n);
  return UniqueString(ts, out);
}

namespace {

// Region enter/leave common path. `msg_id` is 0 for no message; `msg` is its text.
inline __attribute__((always_inline)) void RegionEvent(ThreadState* ts, EventType type,
                                                       uint32_t site_index, bool has_msg,
                                                       absl::string_view msg, uint64_t msg_id) {
  const uint64_t site = GenSiteId(ts, site_index);
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  uint8_t* p = ts->pos.get();
  *p++ = static_cast<uint8_t>(type);
  p = format::PutUvarint(p, dt);
  p = format::PutUvarint(p, site);
  p = format::PutUvarint(p, msg_id);
  ts->pos.publish(p);
  if (type == EventType::kRegionEnter) {
    uint32_t msg_offset = 0;
    if (has_msg) {
      msg_offset = static_cast<uint32_t>(ts->msg_arena.size());
      ts->msg_arena.append(msg.data(), msg.size());
    }
    ts->regions.push_back(
        RegionFrame{site_index, has_msg, msg_offset, static_cast<uint32_t>(msg.size()), now});
  } else if (!ts->regions.empty()) {
    if (ts->regions.back().has_msg) ts->msg_arena.resize(ts->regions.back().msg_offset);
    ts->regions.pop_back();
  }
}

void RegionPrintf(EventType type, const char* file, int line, const char* category,
                  const char* label, int repo_id, const char* fmt, va_list ap) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint32_t index = SiteIndexForContent(ts, file, line, category, label, repo_id);
  if (SiteFiltered(index)) {
    EndEvent(ts);
    return;
  }
  MaybeRecordStack(ts, type);
  // git omits the message when fmt is NULL or "".
  const bool has_msg = fmt != nullptr && *fmt != '\0';
  uint64_t msg_id = 0;
  absl::string_view msg;
  if (has_msg) {
    msg_id = FormattedString(ts, fmt, ap);
    msg = ts->scratch;  // the formatted text; valid until the thread's next formatting
  }
  RegionEvent(ts, type, index, has_msg, msg, msg_id);
  EndEvent(ts);
}

// data/data_int/data_json with a content site: the value is `value_fn(ts)` (a string id or
// the integer), computed only for a site not filtered out.
template <typename ValueFn>
void DataEvent(EventType type, const char* file, int line, const char* category, int repo_id,
               const char* key, ValueFn value_fn) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint32_t index = SiteIndexForContent(ts, file, line, category, key, repo_id);
  if (SiteFiltered(index)) {
    EndEvent(ts);
    return;
  }
  MaybeRecordStack(ts, type);
  const uint64_t value = value_fn(ts);
  WriteTimed(ts, type, GenSiteId(ts, index), {value});
  EndEvent(ts);
}

}  // namespace
}  // namespace tracewire::runtime

namespace {
TRACEWIRE_STARTUP_DATA char g_target_variable[] = "TRACEWIRE";
}  // namespace

using namespace tracewire::runtime;  // NOLINT: C entry points below
namespace format = tracewire::format;

namespace {

// The size of struct tw_settings in the headers before struct_size (up to flight_on_error),
// and in the first header with it (a struct_size of 0 stands for that one).
constexpr size_t kUnsizedSettingsSize = offsetof(tw_settings, categories);
constexpr size_t kFirstSizedSettingsSize = offsetof(tw_settings, struct_size) + sizeof(size_t);

// The program's settings, `size` bytes of them (the fields this library lacks are left
// out, those the program lacks take their defaults).
tw_settings CopySettings(const tw_settings* settings, size_t size) {
  tw_settings copy{};
  std::memcpy(&copy, settings, std::min(size, sizeof(tw_settings)));
  copy.struct_size = sizeof(tw_settings);
  return copy;
}

int InitializeWith(const char* file, int line, tw_settings effective) {
  // The program's own version, else the one the environment gives it.
  if (effective.app_version == nullptr) effective.app_version = getenv("TRACEWIRE_APP_VERSION");
  SettingSource program;
  program.kind = SettingSource::Kind::kProgram;
  program.name = "target";
  return Initialize(effective, file, line, program);
}

}  // namespace

extern "C" {

TRACEWIRE_STARTUP_PATH void tw_initialize_clock(void) { MarkStartTime(); }

TRACEWIRE_STARTUP_PATH void tw_initialize_fl(const char* file, int line) {
  // Tracing off (no TRACEWIRE in the environment or the settings files) is the common
  // case: then the other settings, which only a traced process uses, are not looked up.
  tw_settings settings{};
  const SettingValue target = LookupSetting(g_target_variable);
  settings.target = target.value;
  if (settings.target != nullptr && *settings.target != '\0' && !Initialized()) {
    bool refused = false;
    settings = LoadSettings(&refused);
    if (refused) settings.target = nullptr;  // a setting turned tracing off (it warned)
  }
  Initialize(settings, file, line, target.source);
}

int tw_initialize_with_fl(const char* file, int line, const struct tw_settings* settings) {
  if (settings == nullptr) return -1;
  return InitializeWith(file, line, CopySettings(settings, kUnsizedSettingsSize));
}

int tw_initialize_with_sized_fl(const char* file, int line, const struct tw_settings* settings) {
  if (settings == nullptr) return -1;
  const size_t size = settings->struct_size == 0 ? kFirstSizedSettingsSize : settings->struct_size;
  if (size < kFirstSizedSettingsSize) return -1;
  return InitializeWith(file, line, CopySettings(settings, size));
}

int tw_is_enabled(void) { return TW_ENABLED(); }

void tw_flush(void) {
  if (TW_ENABLED()) AdvanceGeneration(false);
}

int tw_flight_recorder_dump(void) { return FlightRecorderDump(); }

void tw_cmd_start_fl(const char* file, int line, const char** argv) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t list = ArgvString(ts, argv, RedactionEnabled());
  WriteTimed(ts, EventType::kStart, SiteFor(ts, file, line), {list});
  EndEvent(ts);
  // git records cmd_ancestry right after start (compat/linux/procinfo.c).
  if (AutomaticAncestryEnabled()) RecordAutomaticAncestry(file, line);
}

TRACEWIRE_STARTUP_PATH int tw_cmd_exit_fl(const char* file, int line, int code) {
  SetExitCode(code);
  if (!TW_ENABLED()) return code;
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return code;
  WriteTimed(ts, EventType::kExit, SiteFor(ts, file, line), {ZigzagEncode(code)});
  EndEvent(ts);
  return code;
}

void tw_cmd_error_va_fl(const char* file, int line, const char* fmt, va_list ap) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  MaybeRecordStack(ts, EventType::kError);
  uint64_t msg_id = 0;
  uint64_t fmt_id = 0;
  if (fmt != nullptr && *fmt != '\0') {  // git writes msg and fmt only for a non-empty fmt
    msg_id = FormattedString(ts, fmt, ap);
    fmt_id = UniqueString(ts, fmt);  // per-thread, no lock (strings are never deduplicated
                                     // on an event's path)
  }
  WriteTimed(ts, EventType::kError, SiteFor(ts, file, line), {msg_id, fmt_id});
  EndEvent(ts);
  NoteErrorForFlightRecorder();
}

void tw_cmd_error_fl(const char* file, int line, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tw_cmd_error_va_fl(file, line, fmt, ap);
  va_end(ap);
}

void tw_cmd_path_fl(const char* file, int line, const char* pathname) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t path = OptionalUnique(ts, pathname);
  WriteTimed(ts, EventType::kCmdPath, SiteFor(ts, file, line), {path});
  EndEvent(ts);
}

void tw_cmd_ancestry_fl(const char* file, int line, const char** parent_names) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t list = ArgvString(ts, parent_names, false);
  WriteTimed(ts, EventType::kCmdAncestry, SiteFor(ts, file, line), {list});
  EndEvent(ts);
}

void tw_cmd_name_fl(const char* file, int line, const char* name) {
  if (name == nullptr) name = "";
  const char* parent = getenv("TRACEWIRE_PARENT_NAME");
  const std::string hierarchy =
      parent != nullptr && *parent != '\0' ? Cat({parent, "/", name}) : std::string(name);
  setenv("TRACEWIRE_PARENT_NAME", hierarchy.c_str(), 1);
  SetCommandName(name, hierarchy);
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t name_id = UniqueString(ts, name);
  const uint64_t hierarchy_id = UniqueString(ts, hierarchy);
  WriteTimed(ts, EventType::kCmdName, SiteFor(ts, file, line), {name_id, hierarchy_id});
  EndEvent(ts);
}

void tw_cmd_mode_fl(const char* file, int line, const char* mode) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t mode_id = OptionalUnique(ts, mode);
  WriteTimed(ts, EventType::kCmdMode, SiteFor(ts, file, line), {mode_id});
  EndEvent(ts);
}

void tw_cmd_alias_fl(const char* file, int line, const char* alias, const char** argv) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t alias_id = OptionalUnique(ts, alias);
  const uint64_t list = ArgvString(ts, argv, RedactionEnabled());
  WriteTimed(ts, EventType::kAlias, SiteFor(ts, file, line), {alias_id, list});
  EndEvent(ts);
}

void tw_def_param_fl(const char* file, int line, const char* param, const char* value,
                     const char* scope) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t scope_id = OptionalUnique(ts, scope);
  const uint64_t param_id = OptionalUnique(ts, param);
  uint64_t value_id = 0;
  if (value != nullptr) {
    if (RedactionEnabled()) {
      std::string& redacted = ts->scratch;
      redacted.clear();
      AppendRedactedParam(param != nullptr ? param : "", value, &redacted);
      value_id = UniqueString(ts, redacted);
    } else {
      value_id = UniqueString(ts, value);
    }
  }
  WriteTimed(ts, EventType::kDefParam, SiteFor(ts, file, line), {scope_id, param_id, value_id});
  EndEvent(ts);
}

int tw_def_repo_fl(const char* file, int line, const char* worktree) {
  if (!TW_ENABLED()) return 0;
  const int repo_id = NextRepoId();
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return repo_id;
  const uint64_t worktree_id = OptionalUnique(ts, worktree);
  WriteTimed(ts, EventType::kDefRepo, SiteFor(ts, file, line, nullptr, nullptr, repo_id),
             {static_cast<uint64_t>(repo_id), worktree_id});
  EndEvent(ts);
  return repo_id;
}

void tw_child_start_fl(const char* file, int line, struct tw_child* child) {
  if (child == nullptr) return;
  child->child_id = NextChildId();
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  MaybeRecordStack(ts, EventType::kChildStart);
  const uint64_t class_id = OptionalUnique(ts, child->child_class);
  const uint64_t hook_id = OptionalUnique(ts, child->hook_name);
  const uint64_t cd_id = OptionalUnique(ts, child->dir);
  const uint64_t flags = (child->use_shell ? format::kChildFlagUseShell : 0) |
                         (child->git_cmd ? format::kChildFlagGitCommand : 0);
  const uint64_t list = ArgvString(ts, child->argv, RedactionEnabled());
  const uint64_t site = SiteFor(ts, file, line);
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  child->start_ticks = now;
  WriteEvent(
      ts, EventType::kChildStart,
      {dt, site, static_cast<uint64_t>(child->child_id), class_id, hook_id, cd_id, flags, list});
  EndEvent(ts);
}

void tw_child_exit_fl(const char* file, int line, struct tw_child* child, int exit_code) {
  if (child == nullptr) return;
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint64_t site = SiteFor(ts, file, line);
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  const uint64_t elapsed = now > child->start_ticks ? now - child->start_ticks : 0;
  WriteEvent(ts, EventType::kChildExit,
             {dt, site, static_cast<uint64_t>(child->child_id), ZigzagEncode(child->pid),
              ZigzagEncode(exit_code), elapsed});
  EndEvent(ts);
}

void tw_child_ready_fl(const char* file, int line, struct tw_child* child, const char* ready) {
  if (child == nullptr) return;
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  uint64_t ready_value = format::kChildReadyError;
  if (ready != nullptr && strcmp(ready, "ready") == 0) ready_value = format::kChildReadyReady;
  if (ready != nullptr && strcmp(ready, "timeout") == 0) ready_value = format::kChildReadyTimeout;
  const uint64_t site = SiteFor(ts, file, line);
  uint64_t now;
  const uint64_t dt = StampEvent(ts, &now);
  const uint64_t elapsed = now > child->start_ticks ? now - child->start_ticks : 0;
  WriteEvent(ts, EventType::kChildReady,
             {dt, site, static_cast<uint64_t>(child->child_id), ZigzagEncode(child->pid),
              ready_value, elapsed});
  EndEvent(ts);
}

int tw_exec_fl(const char* file, int line, const char* exe, const char** argv) {
  if (!TW_ENABLED()) return -1;
  const int exec_id = NextExecId();
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return exec_id;
  const uint64_t exe_id = OptionalUnique(ts, exe);
  const uint64_t list = ArgvString(ts, argv, RedactionEnabled());
  WriteTimed(ts, EventType::kExec, SiteFor(ts, file, line),
             {static_cast<uint64_t>(exec_id), exe_id, list});
  EndEvent(ts);
  // The exec may replace this process: write what was recorded so far.
  AdvanceGeneration(false);
  return exec_id;
}

void tw_exec_result_fl(const char* file, int line, int exec_id, int code) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  WriteTimed(ts, EventType::kExecResult, SiteFor(ts, file, line),
             {static_cast<uint64_t>(exec_id), ZigzagEncode(code)});
  EndEvent(ts);
}

void tw_thread_start_fl(const char* file, int line, const char* thread_base_name) {
  const char* base = thread_base_name == nullptr ? "" : thread_base_name;
  ThreadState* current = PeekCurrentThread();
  if (current != nullptr && current->is_main) {
    // git turns thread_start on the main thread into a region.
    ThreadState* ts = BeginEvent();
    if (ts == nullptr) return;
    const std::string msg = Cat({"thread-proc on main: ", base});
    const uint64_t msg_id = UniqueString(ts, msg);
    RegionEvent(ts, EventType::kRegionEnter,
                SiteIndexForContent(ts, file, line, nullptr, nullptr, TW_NO_REPO), true, msg,
                msg_id);
    EndEvent(ts);
    return;
  }
  if (current == nullptr) {
    if (AttachThread(base, /*is_main=*/false, /*pending_status=*/false) == nullptr) return;
  }
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  // Renamed inside the event: the advancer reads the name to re-state the thread.
  if (current != nullptr) NameCurrentThread(ts, base);
  const uint64_t name_id = UniqueString(ts, ts->name);
  WriteTimed(ts, EventType::kThreadStart, SiteFor(ts, file, line), {name_id, ts->tid});
  ts->start_time = ts->last_time.get();
  EndEvent(ts);
}

void tw_thread_exit_fl(const char* file, int line) {
  ThreadState* current = PeekCurrentThread();
  if (current == nullptr) return;
  if (current->is_main) {
    ThreadState* ts = BeginEvent();
    if (ts == nullptr) return;
    const char* msg = "thread-proc on main";
    RegionEvent(ts, EventType::kRegionLeave,
                SiteIndexForContent(ts, file, line, nullptr, nullptr, TW_NO_REPO), true, msg,
                UniqueString(ts, msg));
    EndEvent(ts);
    return;
  }
  DetachCurrentThread(/*emit_exit_events=*/true, file, line);
}

void tw_region_enter_fl(const char* file, int line, const char* category, const char* label,
                        int repo_id) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint32_t index = SiteIndexForContent(ts, file, line, category, label, repo_id);
  if (SiteFiltered(index)) {
    EndEvent(ts);
    return;
  }
  MaybeRecordStack(ts, EventType::kRegionEnter);
  RegionEvent(ts, EventType::kRegionEnter, index, false, {}, 0);
  EndEvent(ts);
}

void tw_region_leave_fl(const char* file, int line, const char* category, const char* label,
                        int repo_id) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint32_t index = SiteIndexForContent(ts, file, line, category, label, repo_id);
  if (SiteFiltered(index)) {
    EndEvent(ts);
    return;
  }
  MaybeRecordStack(ts, EventType::kRegionLeave);
  RegionEvent(ts, EventType::kRegionLeave, index, false, {}, 0);
  EndEvent(ts);
}

void tw_region_enter_printf_va_fl(const char* file, int line, const char* category,
                                  const char* label, int repo_id, const char* fmt, va_list ap) {
  RegionPrintf(EventType::kRegionEnter, file, line, category, label, repo_id, fmt, ap);
}

void tw_region_leave_printf_va_fl(const char* file, int line, const char* category,
                                  const char* label, int repo_id, const char* fmt, va_list ap) {
  RegionPrintf(EventType::kRegionLeave, file, line, category, label, repo_id, fmt, ap);
}

void tw_region_enter_printf_fl(const char* file, int line, const char* category, const char* label,
                               int repo_id, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  RegionPrintf(EventType::kRegionEnter, file, line, category, label, repo_id, fmt, ap);
  va_end(ap);
}

void tw_region_leave_printf_fl(const char* file, int line, const char* category, const char* label,
                               int repo_id, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  RegionPrintf(EventType::kRegionLeave, file, line, category, label, repo_id, fmt, ap);
  va_end(ap);
}

void tw_data_string_fl(const char* file, int line, const char* category, int repo_id,
                       const char* key, const char* value) {
  DataEvent(EventType::kData, file, line, category, repo_id, key,
            [value](ThreadState* ts) { return UniqueString(ts, value == nullptr ? "" : value); });
}

void tw_data_intmax_fl(const char* file, int line, const char* category, int repo_id,
                       const char* key, intmax_t value) {
  DataEvent(EventType::kDataInt, file, line, category, repo_id, key,
            [value](ThreadState*) { return ZigzagEncode(value); });
}

void tw_data_intmax_site(struct tw_callsite* site, const char* file, int line, const char* category,
                         int repo_id, const char* key, intmax_t value) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint32_t index = SiteIndexForCallsite(site, file, line, category, key, repo_id);
  if (__builtin_expect(index == kFilteredSite, 0)) {
    EndEvent(ts);
    return;
  }
  if (__builtin_expect(WantStack(EventType::kDataInt), 0)) {
    MaybeRecordStack(ts, EventType::kDataInt);
  }
  const uint64_t site_id = GenSiteId(ts, index);
  WriteTimed(ts, EventType::kDataInt, site_id, {ZigzagEncode(value)});
  EndEvent(ts);
}

void tw_data_json_fl(const char* file, int line, const char* category, int repo_id, const char* key,
                     const char* json) {
  DataEvent(EventType::kDataJson, file, line, category, repo_id, key,
            [json](ThreadState* ts) { return UniqueString(ts, json == nullptr ? "null" : json); });
}

void tw_printf_va_fl(const char* file, int line, const char* fmt, va_list ap) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  MaybeRecordStack(ts, EventType::kPrintf);
  const uint64_t msg_id = fmt == nullptr ? 0 : FormattedString(ts, fmt, ap);
  WriteTimed(ts, EventType::kPrintf, SiteFor(ts, file, line), {msg_id});
  EndEvent(ts);
}

void tw_printf_fl(const char* file, int line, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tw_printf_va_fl(file, line, fmt, ap);
  va_end(ap);
}

int tw_timer_define(const char* category, const char* name, int per_thread) {
  return DefineTimer(category, name, per_thread != 0);
}

void tw_timer_start(int timer_id) {
  if (!TW_ENABLED() || timer_id < 0 || timer_id >= kMaxTimers) return;
  ThreadState* ts = CurrentThread();
  if (ts == nullptr) return;
  TimerState& t = ts->timers[timer_id];
  if (t.depth++ == 0) t.started = ReadTicks();
}

void tw_timer_stop(int timer_id) {
  if (!TW_ENABLED() || timer_id < 0 || timer_id >= kMaxTimers) return;
  ThreadState* ts = CurrentThread();
  if (ts == nullptr) return;
  TimerState& t = ts->timers[timer_id];
  if (t.depth == 0 || --t.depth != 0) return;
  const uint64_t now = ReadTicks();
  const uint64_t elapsed = now > t.started ? now - t.started : 0;
  t.min = t.intervals == 0 ? elapsed : std::min(t.min, elapsed);
  t.max = std::max(t.max, elapsed);
  t.total += elapsed;
  ++t.intervals;
}

int tw_counter_define(const char* category, const char* name, int per_thread) {
  return DefineCounter(category, name, per_thread != 0);
}

void tw_counter_add(int counter_id, uint64_t value) {
  if (!TW_ENABLED() || counter_id < 0 || counter_id >= kMaxCounters) return;
  ThreadState* ts = CurrentThread();
  if (ts == nullptr) return;
  ts->counters[counter_id] += value;
  ts->counter_used[counter_id] = true;
}

}  // extern "C"

namespace tracewire::runtime {

// The full paths of region events at a literal call site (see region_at_callsite.cc). Enter
// and leave stay two functions rather than one taking the event type: a stack recorded with
// the event skips a fixed number of the runtime's own frames, and a shared helper that is
// not inlined (unoptimized builds) would add one.
void RegionEnterAtCallsiteSlow(tw_callsite* site, const char* file, int line, const char* category,
                               const char* label, int repo_id) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint32_t index = SiteIndexForCallsite(site, file, line, category, label, repo_id);
  if (__builtin_expect(index == kFilteredSite, 0)) {
    EndEvent(ts);
    return;
  }
  if (__builtin_expect(WantStack(EventType::kRegionEnter), 0)) {
    MaybeRecordStack(ts, EventType::kRegionEnter);
  }
  RegionEvent(ts, EventType::kRegionEnter, index, false, {}, 0);
  RememberHotSite(ts, site, repo_id, index);
  EndEvent(ts);
}

void RegionLeaveAtCallsiteSlow(tw_callsite* site, const char* file, int line, const char* category,
                               const char* label, int repo_id) {
  ThreadState* ts = BeginEvent();
  if (ts == nullptr) return;
  const uint32_t index = SiteIndexForCallsite(site, file, line, category, label, repo_id);
  if (__builtin_expect(index == kFilteredSite, 0)) {
    EndEvent(ts);
    return;
  }
  if (__builtin_expect(WantStack(EventType::kRegionLeave), 0)) {
    MaybeRecordStack(ts, EventType::kRegionLeave);
  }
  RegionEvent(ts, EventType::kRegionLeave, index, false, {}, 0);
  RememberHotSite(ts, site, repo_id, index);
  EndEvent(ts);
}

}  // namespace tracewire::runtime
