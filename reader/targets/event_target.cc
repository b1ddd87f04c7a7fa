#include "reader/targets/event_target.h"

#include <array>
#include <cstdlib>
#include <string>

#include "absl/strings/str_format.h"
#include "reader/kind_table.h"
#include "reader/targets/fixed_decimal.h"
#include "reader/targets/internal_site.h"
#include "reader/targets/json_writer.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;

// Writes the keys that follow the common prefix; `cache` holds the quoted text of strings
// that repeat line after line (categories, labels).
using PayloadFn = void (*)(const Event& e, JsonWriter& jw, JsonStringCache& cache);

// What the EVENT target does with one kind of event.
struct KindRule {
  PayloadFn payload = nullptr;    // nullptr: the kind is not written
  bool nesting_filtered = false;  // dropped when deeper than the nesting limit
  bool time_when_brief = false;   // keeps "time" in brief mode
  // The first "evt" version whose git wrote this event (older versions drop it).
  int since_evt = 1;
  // Payload of versions before `legacy_before` (nullptr: `payload` in every version).
  PayloadFn legacy_payload = nullptr;
  int legacy_before = 0;
};

// Versions of the EVENT format (the "evt" value) and the git releases that wrote them:
//   1  git 2.22-2.23
//   2  git 2.24-2.33: too_many_files
//   3  git 2.34-2.46: cmd_ancestry, child_ready; def_param "scope" (2.38);
//      timer, th_timer, counter, th_counter (2.39, without a version change)
//   4  git 2.47+: printf
constexpr int kEvtTooManyFiles = 2;
constexpr int kEvtAncestryAndReady = 3;
constexpr int kEvtScopeAndTimers = 3;
constexpr int kEvtPrintf = 4;

void Argv(const Event& e, JsonWriter& jw, bool leading_git) {
  jw.ObjectBeginArray("argv");
  if (leading_git) jw.ArrayString("git");
  for (absl::string_view arg : e.argv) jw.ArrayString(arg);
  jw.End();
}

// region_enter/region_leave after "nesting".
void RegionNames(const Event& e, JsonWriter& jw, JsonStringCache& cache) {
  OutputCursor& cursor = jw.ObjectRawMembers();
  cursor.PutLiteral("\"nesting\":");
  cursor.PutInt(e.nesting);
  if (!e.category.empty()) {
    cursor.PutLiteral(",\"category\":");
    cursor.Put(cache.Quoted(e.category));
  }
  if (!e.label.empty()) {
    cursor.PutLiteral(",\"label\":");
    cursor.Put(cache.Quoted(e.label));
  }
  if (e.msg.has_value()) jw.ObjectString("msg", *e.msg);
}

// data/data_json up to "key".
void DataHead(const Event& e, JsonWriter& jw, JsonStringCache& cache) {
  OutputCursor& cursor = jw.ObjectRawMembers();
  cursor.PutLiteral("\"t_abs\":");
  PutFixed(e.t_abs, 6, cursor);
  cursor.PutLiteral(",\"t_rel\":");
  PutFixed(e.t_rel.value_or(0), 6, cursor);
  cursor.PutLiteral(",\"nesting\":");
  cursor.PutInt(e.nesting);
  cursor.PutLiteral(",\"category\":");
  cursor.Put(cache.Quoted(e.category));
  cursor.PutLiteral(",\"key\":");
  cursor.Put(cache.Quoted(e.label));
}

void TimerPayload(const Event& e, JsonWriter& jw, JsonStringCache& cache) {
  jw.ObjectRepeatedString("category", e.category, cache);
  jw.ObjectRepeatedString("name", e.label, cache);
  jw.ObjectInt("intervals", static_cast<int64_t>(e.intervals));
  jw.ObjectDouble("t_total", 6, e.t_total);
  jw.ObjectDouble("t_min", 6, e.t_min);
  jw.ObjectDouble("t_max", 6, e.t_max);
}

void TaskPayload(const Event& e, JsonWriter& jw, JsonStringCache& cache) {
  jw.ObjectRawJson("task", absl::StrCat(e.task_id), false);
}

void CounterPayload(const Event& e, JsonWriter& jw, JsonStringCache& cache) {
  jw.ObjectRepeatedString("category", e.category, cache);
  jw.ObjectRepeatedString("name", e.label, cache);
  jw.ObjectInt("count", static_cast<int64_t>(e.count));
}

// def_param after "scope" (the whole payload before evt 3).
void DefParamValue(const Event& e, JsonWriter& jw, JsonStringCache& cache) {
  jw.ObjectString("param", e.param);
  if (e.param_value.has_value()) jw.ObjectString("value", *e.param_value);
}

void Nothing(const Event&, JsonWriter&, JsonStringCache&) {}

// "stack":[{"pc":"0x…","func":…,"file":…,"line":…,"module":…,"offset":"0x…"},…], keys
// of unknown parts left out; addresses are hex strings (JSON numbers lose 64-bit values).
void StackArray(const Event& e, JsonWriter& jw) {
  jw.ObjectBeginArray("stack");
  for (const reader::SymbolFrame& frame : e.stack) {
    jw.ArrayBeginObject();
    jw.ObjectString("pc", absl::StrFormat("0x%x", frame.pc));
    if (!frame.func.empty()) jw.ObjectString("func", frame.func);
    if (!frame.file.empty()) jw.ObjectString("file", frame.file);
    if (frame.line != 0) jw.ObjectInt("line", static_cast<int64_t>(frame.line));
    if (!frame.module.empty()) {
      jw.ObjectString("module", frame.module);
      jw.ObjectString("offset", absl::StrFormat("0x%x", frame.module_offset));
    }
    jw.End();
  }
  jw.End();
}

constexpr reader::KindTable<KindRule> MakeRules() {
  reader::KindTable<KindRule> r;
  // "evt" and "exe" are written by Write (the evt value is an option).
  r[EventKind::kVersion] = {Nothing, false, true};
  r[EventKind::kTooManyFiles] = {.payload = Nothing, .since_evt = kEvtTooManyFiles};
  r[EventKind::kStart] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectDouble("t_abs", 6, e.t_abs);
    Argv(e, jw, false);
  }};
  r[EventKind::kExit] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectDouble("t_abs", 6, e.t_abs);
    jw.ObjectInt("code", e.code);
  }};
  r[EventKind::kSignal] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectDouble("t_abs", 6, e.t_abs);
    jw.ObjectInt("signo", static_cast<int64_t>(e.signo));
  }};
  r[EventKind::kAtexit] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                             jw.ObjectDouble("t_abs", 6, e.t_abs);
                             jw.ObjectInt("code", e.code);
                           },
                           false, true};
  r[EventKind::kError] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    // git writes both iff the format is non-empty.
    if (e.fmt.has_value() && !e.fmt->empty()) {
      jw.ObjectString("msg", e.msg.value_or(absl::string_view()));
      jw.ObjectString("fmt", *e.fmt);
    } else if (!e.fmt.has_value() && e.msg.has_value()) {
      jw.ObjectString("msg", *e.msg);
    }
  }};
  r[EventKind::kCmdPath] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectString("path", e.cmd_path);
  }};
  r[EventKind::kCmdAncestry] = {.payload =
                                    [](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                                      jw.ObjectBeginArray("ancestry");
                                      for (absl::string_view name : e.ancestry) {
                                        jw.ArrayString(name);
                                      }
                                      jw.End();
                                    },
                                .since_evt = kEvtAncestryAndReady};
  r[EventKind::kCmdName] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectString("name", e.cmd_name);
    if (e.cmd_hierarchy.has_value() && !e.cmd_hierarchy->empty()) {
      jw.ObjectString("hierarchy", *e.cmd_hierarchy);
    }
  }};
  r[EventKind::kCmdMode] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectString("name", e.cmd_mode);
  }};
  r[EventKind::kAlias] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectString("alias", e.alias);
    Argv(e, jw, false);
  }};
  r[EventKind::kChildStart] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectInt("child_id", static_cast<int64_t>(e.child_id));
    if (e.hook_name.has_value()) {
      jw.ObjectString("child_class", "hook");
      jw.ObjectString("hook_name", *e.hook_name);
    } else {
      jw.ObjectString("child_class", e.child_class);
    }
    if (e.cd.has_value()) jw.ObjectString("cd", *e.cd);
    jw.ObjectBool("use_shell", e.use_shell);
    Argv(e, jw, e.is_git_command);
  }};
  r[EventKind::kChildExit] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectInt("child_id", static_cast<int64_t>(e.child_id));
    jw.ObjectInt("pid", e.pid);
    jw.ObjectInt("code", e.code);
    jw.ObjectDouble("t_rel", 6, e.t_rel.value_or(0));
  }};
  r[EventKind::kChildReady] = {.payload =
                                   [](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                                     jw.ObjectInt("child_id", static_cast<int64_t>(e.child_id));
                                     jw.ObjectInt("pid", e.pid);
                                     jw.ObjectString("ready", e.ready);
                                     jw.ObjectDouble("t_rel", 6, e.t_rel.value_or(0));
                                   },
                               .since_evt = kEvtAncestryAndReady};
  r[EventKind::kExec] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectInt("exec_id", static_cast<int64_t>(e.exec_id));
    if (e.exec_exe.has_value()) jw.ObjectString("exe", *e.exec_exe);
    Argv(e, jw, false);
  }};
  r[EventKind::kExecResult] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectInt("exec_id", static_cast<int64_t>(e.exec_id));
    jw.ObjectInt("code", e.code);
  }};
  r[EventKind::kThreadStart] = {Nothing};
  r[EventKind::kThreadExit] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectDouble("t_rel", 6, e.t_rel.value_or(0));
  }};
  r[EventKind::kDefParam] = {.payload =
                                 [](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                                   // git before 2.38 had no scope: an empty scope is left out, as
                                   // those versions wrote it.
                                   if (!e.param_scope.empty())
                                     jw.ObjectString("scope", e.param_scope);
                                   DefParamValue(e, jw, cache);
                                 },
                             .legacy_payload = DefParamValue,
                             .legacy_before = kEvtScopeAndTimers};
  r[EventKind::kDefRepo] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectString("worktree", e.worktree);
  }};
  r[EventKind::kRegionEnter] = {RegionNames, true};
  r[EventKind::kRegionLeave] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                                  jw.ObjectDouble("t_rel", 6, e.t_rel.value_or(0));
                                  RegionNames(e, jw, cache);
                                },
                                true};
  r[EventKind::kData] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                           DataHead(e, jw, cache);
                           // Always a string: data_int's value_string is its decimal form.
                           jw.ObjectString("value", e.value_string);
                         },
                         true};
  r[EventKind::kDataJson] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                               DataHead(e, jw, cache);
                               // The caller's JSON, compacted as git compacts a pretty
                               // sub-writer (a no-op on compact JSON).
                               jw.ObjectRawJson("value", e.value_string, /*json_is_pretty=*/true);
                             },
                             true};
  r[EventKind::kPrintf] = {.payload =
                               [](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
                                 jw.ObjectDouble("t_abs", 6, e.t_abs);
                                 if (e.msg.has_value()) jw.ObjectString("msg", *e.msg);
                               },
                           .since_evt = kEvtPrintf};
  r[EventKind::kThTimer] = {.payload = TimerPayload, .since_evt = kEvtScopeAndTimers};
  r[EventKind::kTimer] = {.payload = TimerPayload, .since_evt = kEvtScopeAndTimers};
  r[EventKind::kThCounter] = {.payload = CounterPayload, .since_evt = kEvtScopeAndTimers};
  r[EventKind::kCounter] = {.payload = CounterPayload, .since_evt = kEvtScopeAndTimers};
  // tracewire's own events (no Trace2 equivalent): extension lines, left out with
  // --git_exact (EventTarget::Write).
  r[EventKind::kTaskBegin] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectString("category", e.category);
    jw.ObjectString("name", e.label);
    jw.ObjectRawJson("task", absl::StrCat(e.task_id), false);
    jw.ObjectRawJson("parent", absl::StrCat(e.parent_task), false);
  }};
  r[EventKind::kTaskEnd] = {TaskPayload};
  r[EventKind::kTaskAdopt] = {TaskPayload};
  r[EventKind::kTaskRelease] = {TaskPayload};
  r[EventKind::kGauge] = {[](const Event& e, JsonWriter& jw, JsonStringCache& cache) {
    jw.ObjectString("category", e.category);
    jw.ObjectString("name", e.label);
    jw.ObjectInt("value", e.value_int);
    if (e.unit.has_value()) jw.ObjectString("unit", *e.unit);
  }};
  // kExperimental stays {nullptr}: git has no such event.
  return r;
}

constexpr reader::KindTable<KindRule> kRules = MakeRules();

// Each kind's name as a quoted JSON string (names need no escape).
const std::array<std::string, reader::kNumEventKinds> kQuotedKindNames = [] {
  std::array<std::string, reader::kNumEventKinds> names;
  for (size_t kind = 0; kind < names.size(); ++kind) {
    AppendJsonString(reader::EventKindName(static_cast<EventKind>(kind)), &names[kind]);
  }
  return names;
}();

}  // namespace

int ParseEventNesting(absl::string_view value) {
  const std::string text(value);
  // atoi: strtol's value truncated to int.
  const int parsed = static_cast<int>(std::strtol(text.c_str(), nullptr, 10));
  return parsed > 0 ? parsed : kDefaultEventNesting;
}

EventTarget::EventTarget(const FormatterOptions& options)
    : brief_(options.brief),
      git_exact_(options.git_exact),
      nesting_limit_(options.event_nesting),
      version_(options.event_version),
      stacks_(options.event_stacks) {}

void EventTarget::Write(const Event& e, std::string* out) {
  const KindRule& rule = kRules[e.kind];
  if (rule.payload == nullptr || version_ < rule.since_evt) return;
  if (git_exact_ && reader::IsExtensionKind(e.kind)) return;
  if (rule.nesting_filtered && e.nesting > nesting_limit_) return;

  JsonWriter jw(out);
  jw.BeginObject();
  {
    // The members every line starts with, written straight through the cursor.
    OutputCursor& cursor = jw.ObjectRawMembers();
    cursor.PutLiteral("\"event\":");
    cursor.Put(kQuotedKindNames[static_cast<size_t>(e.kind)]);
    cursor.PutLiteral(",\"sid\":");
    cursor.Put(strings_.Quoted(e.sid));
    cursor.PutLiteral(",\"thread\":");
    cursor.Put(strings_.Quoted(e.thread_name));
    if (!brief_ || rule.time_when_brief) {
      cursor.PutLiteral(",\"time\":\"");  // the time text never needs an escape
      time_text_.Put(e.time, cursor);
      cursor.Put('"');
    }
    if (!brief_) {
      absl::string_view file;
      int64_t line;
      SiteOf(e, kEventInternalSites, git_exact_, &file, &line);
      if (!file.empty()) {
        cursor.PutLiteral(",\"file\":");
        cursor.Put(strings_.Quoted(file));
        cursor.PutLiteral(",\"line\":");
        cursor.PutInt(line);
      }
    }
    if (e.repo.has_value()) {
      cursor.PutLiteral(",\"repo\":");
      cursor.PutInt(*e.repo);
    }
  }
  if (e.kind == EventKind::kVersion) {
    const char evt[2] = {static_cast<char>('0' + version_), '\0'};
    jw.ObjectString("evt", evt);
    jw.ObjectString("exe", e.exe);
  } else if (version_ < rule.legacy_before) {
    rule.legacy_payload(e, jw, strings_);
  } else {
    rule.payload(e, jw, strings_);
  }
  if (stacks_ && !e.stack.empty()) StackArray(e, jw);
  jw.End();
  out->push_back('\n');
}

}  // namespace tracewire::targets
