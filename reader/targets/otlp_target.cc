#include "reader/targets/otlp_target.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "reader/event.h"
#include "reader/sid_parts.h"
#include "reader/targets/json_check.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/otlp_ids.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;

constexpr int64_t kNoTime = std::numeric_limits<int64_t>::min();
constexpr size_t kMaxClosedSpans = 10000;
constexpr int kKindInternal = 1;  // SPAN_KIND_INTERNAL
constexpr int kKindServer = 2;    // SPAN_KIND_SERVER
constexpr int kStatusUnset = 0;   // STATUS_CODE_UNSET: not written
constexpr int kStatusOk = 1;      // STATUS_CODE_OK
constexpr int kStatusError = 2;   // STATUS_CODE_ERROR
// Errors of one process kept as span events (the first is also the status message).
constexpr size_t kMaxErrorEvents = 100;

using SpanId = std::array<uint8_t, 8>;

// One attribute: trace2receiver's are strings (JSON text for structured values); the OTel
// semantic-convention ones are typed. emplace_back(key, text) makes a string attribute.
struct Attribute {
  enum class Type { kString, kInt, kStringArray };
  Attribute(std::string key, std::string text, Type type = Type::kString, int64_t number = 0,
            std::vector<std::string> list = {})
      : key(std::move(key)),
        text(std::move(text)),
        type(type),
        number(number),
        list(std::move(list)) {}
  std::string key;
  std::string text;  // kString
  Type type = Type::kString;
  int64_t number = 0;             // kInt
  std::vector<std::string> list;  // kStringArray
};

Attribute Int(std::string key, int64_t value) {
  return {std::move(key), "", Attribute::Type::kInt, value, {}};
}
Attribute StrArray(std::string key, std::vector<std::string> values) {
  return {std::move(key), "", Attribute::Type::kStringArray, 0, std::move(values)};
}

// A span event (an `error` on the process span).
struct SpanEvent {
  int64_t time_ns = 0;
  std::string name;
  std::vector<Attribute> attributes;
};

// category -> key -> JSON text of the value (trace2receiver's data[<cat>][<key>] maps).
using JsonMap = std::map<std::string, std::map<std::string, std::string>>;

enum class SpanType { kProcess, kThread, kRegion, kChild, kExec };

struct Span {
  SpanType type = SpanType::kRegion;
  SpanId id{};
  std::optional<SpanId> parent_id;
  Span* parent = nullptr;  // the parent span while this one is open (same process)
  std::string name;
  int64_t start_ns = 0;  // Unix nanoseconds
  int64_t end_ns = 0;
  bool open = true;
  int64_t max_child_end = kNoTime;
  int nesting = 0;  // regions
  std::vector<Attribute> attributes;
  int status_code = kStatusUnset;
  std::string status_message;  // with kStatusError
  std::vector<SpanEvent> events;
  JsonMap data;      // regions
  JsonMap timers;    // threads (and the process span for main)
  JsonMap counters;  // threads (and the process span for main)
};

struct Thread {
  Span* span = nullptr;  // the thread span; the process span for main
  std::vector<Span*> regions;
  uint64_t id = 0;   // the trace's thread number (main = 0)
  std::string name;  // "main", "th01:worker", ...
};

struct Process {
  std::string sid;
  OtlpProcessIds ids;
  uint64_t id_seed = 0;
  uint64_t next_span = 0;
  Span span;                                 // the process span
  std::vector<std::unique_ptr<Span>> spans;  // the other spans, in creation order
  size_t closed = 0;                         // closed region/child/exec spans in `spans`
  std::map<uint64_t, Thread> threads;
  absl::flat_hash_map<uint64_t, Span*> children;  // open ones, by child_id
  absl::flat_hash_map<uint64_t, Span*> execs;     // open ones, by exec_id
  int64_t last_ns = kNoTime;
  bool ended = false;  // exit, atexit or signal seen
  std::optional<int64_t> exit_code;
  std::optional<uint64_t> signo;
  std::string version;
  std::vector<std::string> argv;
  std::string verb;
  std::string hierarchy;
  std::string mode;
  std::string alias_key;
  std::vector<std::string> alias_value;
  std::vector<std::string> ancestry;
  std::optional<std::string> error_fmt;
  std::optional<std::string> error_msg;
  std::vector<SpanEvent> errors;  // the first kMaxErrorEvents error events
  std::map<int64_t, std::string> repos;
  std::map<std::string, std::pair<std::string, int>> params;  // value, scope priority
  JsonMap data;
  JsonMap timers;
  JsonMap counters;
};

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

std::vector<std::string> Strings(const std::vector<absl::string_view>& views) {
  std::vector<std::string> strings;
  strings.reserve(views.size());
  for (absl::string_view view : views) strings.emplace_back(view);
  return strings;
}

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

// trace2receiver's get_scope_priority.
int ScopePriority(absl::string_view scope) {
  if (scope.empty()) return 100;
  static constexpr absl::string_view kScopes[] = {"system",  "global",    "local",  "worktree",
                                                  "command", "submodule", "unknown"};
  for (int i = 0; i < 7; ++i) {
    if (scope == kScopes[i]) return i + 1;
  }
  return 99;
}

// trace2receiver's normalizeForRegionDisplayName.
std::string NormalizeRegionName(absl::string_view value) {
  std::string out = absl::AsciiStrToLower(value);
  for (char& c : out) {
    if (c == ' ' || c == '-' || c == '.' || c == ',' || c == ':' || c == '(' || c == ')') c = '_';
  }
  return out;
}

class OtlpFormatter : public Formatter {
 public:
  void Write(const Event& e, std::string* out) override;
  void Finish(std::string* out) override;

 private:
  Process* ProcessOf(const Event& e);
  Thread& ThreadOf(Process& p, const Event& e, int64_t ns);
  Span* NewSpan(Process& p, SpanType type, Span* parent, std::string name, int64_t ns);
  void Close(Process& p, Span* span, int64_t ns, std::string* out);
  void PopRegion(Process& p, Thread& th, int64_t ns, std::string* out);
  void AddData(Process& p, Thread& th, const Event& e);
  void EndProcess(Process& p, std::string* out);
  // Writes the closed region/child/exec spans (and with `all`, every span) as one line.
  void WriteLine(Process& p, bool all, std::string* out);
  void WriteSpan(JsonWriter& jw, const Process& p, const Span& span);
  // Writes {"key":<key>,"value":{"stringValue":<value>}} as the next array element.
  void WriteAttribute(JsonWriter& jw, absl::string_view key, absl::string_view value);
  // Writes `attribute` as the next array element, with its type's AnyValue member.
  void WriteAttribute(JsonWriter& jw, const Attribute& attribute);
  // Adds thread.id, thread.name and, where the event has a call site, code.filepath and
  // code.lineno.
  void AddThreadAndSite(Span* span, const Thread& th, const Event& e);
  void ProcessAttributes(Process& p);
  std::string ExeVerbMode(const Process& p, std::string* exe, std::string* exe_verb) const;

  // Text helpers (strings are made valid UTF-8 first).
  std::string JsonString(absl::string_view value);
  std::string JsonList(const std::vector<std::string>& items);
  std::string JsonList(const std::vector<absl::string_view>& items, absl::string_view first);
  std::string DataValue(const Event& e);
  static std::string RenderMap(const JsonMap& map);

  absl::flat_hash_map<std::string, std::unique_ptr<Process>> processes_;
  std::vector<Process*> order_;                // open processes, in order of appearance
  absl::flat_hash_set<std::string> finished_;  // sids whose process span was written
  Process* last_process_ = nullptr;
  std::string scratch_;
};

std::string OtlpFormatter::JsonString(absl::string_view value) {
  std::string out;
  AppendJsonString(ValidUtf8(value, &scratch_), &out);
  return out;
}

std::string OtlpFormatter::JsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(ValidUtf8(items[i], &scratch_), &out);
  }
  out.push_back(']');
  return out;
}

std::string OtlpFormatter::JsonList(const std::vector<absl::string_view>& items,
                                    absl::string_view first) {
  std::vector<std::string> all;
  if (!first.empty()) all.emplace_back(first);
  for (absl::string_view item : items) all.emplace_back(item);
  return JsonList(all);
}

std::string OtlpFormatter::DataValue(const Event& e) {
  if (e.value_kind == reader::ValueKind::kJson && IsJsonText(e.value_string)) {
    return std::string(e.value_string);
  }
  return JsonString(e.value_string);  // git's EVENT target writes data_int values as strings
}

std::string OtlpFormatter::RenderMap(const JsonMap& map) {
  std::string out;
  JsonWriter jw(&out);
  jw.BeginObject();
  for (const auto& [category, values] : map) {
    jw.ObjectBeginObject(category);
    for (const auto& [key, json] : values) jw.ObjectRawJson(key, json, false);
    jw.End();
  }
  jw.End();
  return out;
}

Process* OtlpFormatter::ProcessOf(const Event& e) {
  if (last_process_ != nullptr && last_process_->sid == e.sid) return last_process_;
  auto it = processes_.find(e.sid);
  if (it != processes_.end()) return last_process_ = it->second.get();
  if (finished_.contains(e.sid)) return nullptr;  // events after the process's end
  auto process = std::make_unique<Process>();
  Process& p = *process;
  p.sid = std::string(e.sid);
  p.ids = ProcessIdsFromSid(e.sid);
  for (uint8_t b : p.ids.span_id) p.id_seed = (p.id_seed << 8) | b;
  p.span.type = SpanType::kProcess;
  p.span.id = p.ids.span_id;
  p.span.parent_id = p.ids.parent_span_id;
  p.span.start_ns = absl::ToUnixNanos(e.time);
  order_.push_back(&p);
  processes_.emplace(p.sid, std::move(process));
  return last_process_ = &p;
}

Span* OtlpFormatter::NewSpan(Process& p, SpanType type, Span* parent, std::string name,
                             int64_t ns) {
  auto span = std::make_unique<Span>();
  span->type = type;
  uint64_t id = 0;
  while (id == 0) id = SplitMix64(p.id_seed ^ SplitMix64(++p.next_span));
  for (int i = 7; i >= 0; --i, id >>= 8) span->id[i] = static_cast<uint8_t>(id);
  span->parent_id = parent->id;
  span->parent = parent;
  span->name = std::move(name);
  span->start_ns = std::max(ns, parent->start_ns);
  p.spans.push_back(std::move(span));
  return p.spans.back().get();
}

void OtlpFormatter::Close(Process& p, Span* span, int64_t ns, std::string* out) {
  span->end_ns = std::max({ns, span->start_ns, span->max_child_end});
  span->open = false;
  if (span->parent != nullptr) {
    span->parent->max_child_end = std::max(span->parent->max_child_end, span->end_ns);
    span->parent = nullptr;
  }
  if (span->type != SpanType::kThread && span->type != SpanType::kProcess &&
      ++p.closed >= kMaxClosedSpans) {
    WriteLine(p, /*all=*/false, out);
  }
}

Thread& OtlpFormatter::ThreadOf(Process& p, const Event& e, int64_t ns) {
  auto [it, inserted] = p.threads.try_emplace(e.thread_id);
  Thread& th = it->second;
  if (inserted) {
    th.id = e.thread_id;
    th.name = std::string(e.thread_name);
    if (e.thread_name == "main") {
      th.span = &p.span;
    } else {
      th.span = NewSpan(p, SpanType::kThread, &p.span, std::string(e.thread_name), ns);
      th.span->attributes.emplace_back("trace2.span.type", "thread");
      th.span->attributes.push_back(Int("thread.id", static_cast<int64_t>(th.id)));
      th.span->attributes.emplace_back("thread.name", th.name);
    }
  }
  return th;
}

void OtlpFormatter::AddThreadAndSite(Span* span, const Thread& th, const Event& e) {
  span->attributes.push_back(Int("thread.id", static_cast<int64_t>(th.id)));
  span->attributes.emplace_back("thread.name", th.name);
  if (!e.file.empty()) {
    span->attributes.emplace_back("code.filepath", std::string(e.file));
    if (e.line > 0) span->attributes.push_back(Int("code.lineno", e.line));
  }
}

void OtlpFormatter::PopRegion(Process& p, Thread& th, int64_t ns, std::string* out) {
  Close(p, th.regions.back(), ns, out);
  th.regions.pop_back();
}

void OtlpFormatter::AddData(Process& p, Thread& th, const Event& e) {
  std::string category(e.category);
  std::string key(e.label);
  if (e.nesting <= 1) {
    p.data[category][key] = DataValue(e);
    return;
  }
  // Data at nesting n belongs to the region at nesting n - 1, the innermost one.
  if (th.regions.empty() || th.regions.back()->nesting != e.nesting - 1) return;
  th.regions.back()->data[category][key] = DataValue(e);
}

void OtlpFormatter::Write(const Event& e, std::string* out) {
  Process* process = ProcessOf(e);
  if (process == nullptr) return;
  Process& p = *process;
  const int64_t ns = absl::ToUnixNanos(e.time);
  p.last_ns = std::max(p.last_ns, ns);
  Thread& th = ThreadOf(p, e, ns);

  // Follow the reader's region depth (see chrome_target.cc): close what git unwound.
  const int keep_below = e.nesting + (e.kind == EventKind::kRegionLeave ? 1 : 0);
  while (!th.regions.empty() && th.regions.back()->nesting >= keep_below) PopRegion(p, th, ns, out);

  switch (e.kind) {
    case EventKind::kVersion:
      p.version = std::string(e.exe);
      break;
    case EventKind::kStart:
      p.argv = Strings(e.argv);
      break;
    case EventKind::kExit:
    case EventKind::kAtexit:
      p.exit_code = e.code;
      p.span.end_ns = ns;
      p.ended = true;
      break;
    case EventKind::kSignal:
      p.signo = e.signo;
      p.exit_code = 128 + static_cast<int64_t>(e.signo);
      p.span.end_ns = ns;
      p.ended = true;
      break;
    case EventKind::kError:
      if (!p.error_fmt.has_value()) {
        p.error_fmt = std::string(e.fmt.value_or(""));
        p.error_msg = std::string(e.msg.value_or(""));
      }
      if (p.errors.size() < kMaxErrorEvents) {
        // OTel's exception event, so that backends list every error of the process.
        SpanEvent& event = p.errors.emplace_back();
        event.time_ns = ns;
        event.name = "exception";
        event.attributes.emplace_back("exception.type", "trace2.error");
        event.attributes.emplace_back("exception.message", std::string(e.msg.value_or("")));
        if (e.fmt.has_value())
          event.attributes.emplace_back("trace2.error.format", std::string(*e.fmt));
        event.attributes.push_back(Int("thread.id", static_cast<int64_t>(th.id)));
        event.attributes.emplace_back("thread.name", th.name);
        if (!e.file.empty()) {
          event.attributes.emplace_back("code.filepath", std::string(e.file));
          if (e.line > 0) event.attributes.push_back(Int("code.lineno", e.line));
        }
      }
      break;
    case EventKind::kCmdAncestry:
      p.ancestry = Strings(e.ancestry);
      break;
    case EventKind::kCmdName:
      p.verb = std::string(e.cmd_name);
      p.hierarchy = std::string(e.cmd_hierarchy.value_or(""));
      break;
    case EventKind::kCmdMode:
      p.mode = std::string(e.cmd_mode);
      break;
    case EventKind::kAlias:
      p.alias_key = std::string(e.alias);
      p.alias_value = Strings(e.argv);
      break;
    case EventKind::kChildStart: {
      if (p.children.contains(e.child_id)) break;
      std::string name;
      const absl::string_view cls = e.child_class;
      if (cls == "editor" || cls == "pager") {
        name = absl::StrCat("child(class:", cls, ")");
      } else if (cls == "hook") {
        name = absl::StrCat("child(hook:", e.hook_name.value_or("??"), ")");
      } else if (cls == "git_alias") {
        name = "child(alias:git)";
      } else if (cls == "shell_alias") {
        name = "child(alias:shell)";
      } else if (cls == "dashed") {
        name = absl::StrCat("child(dashed:", e.argv.empty() ? "" : e.argv.front(), ")");
      } else if (cls == "cred") {
        name = "child(cred:unknown)";
        if (e.argv.size() > 1) {
          name = absl::StrCat("child(cred:", e.argv[1], ")");
        } else if (!e.argv.empty()) {
          for (absl::string_view op : {"get", "store", "erase"}) {
            if (absl::EndsWith(e.argv.front(), op)) name = absl::StrCat("child(cred:", op, ")");
          }
        }
      } else if (cls == "?") {
        name = "child(class:unknown)";
      } else {
        name = absl::StrCat("child(class:", cls, ")");
      }
      Span* span = NewSpan(p, SpanType::kChild, &p.span, std::move(name), ns);
      span->attributes.emplace_back("trace2.span.type", "child");
      span->attributes.emplace_back("trace2.child.argv",
                                    JsonList(e.argv, e.is_git_command ? "git" : ""));
      span->attributes.emplace_back("trace2.child.class", std::string(cls));
      if (cls == "hook") {
        span->attributes.emplace_back("trace2.child.hook", std::string(e.hook_name.value_or("??")));
      }
      std::vector<std::string> args;
      if (e.is_git_command) args.emplace_back("git");
      for (absl::string_view arg : e.argv) args.emplace_back(arg);
      span->attributes.push_back(StrArray("process.command_args", std::move(args)));
      AddThreadAndSite(span, th, e);
      p.children[e.child_id] = span;
      break;
    }
    case EventKind::kChildExit:
    case EventKind::kChildReady: {
      auto it = p.children.find(e.child_id);
      if (it == p.children.end()) break;
      Span* span = it->second;
      p.children.erase(it);
      span->attributes.emplace_back("trace2.child.pid", absl::StrCat(e.pid));
      if (e.pid > 0) span->attributes.push_back(Int("process.pid", e.pid));
      if (e.kind == EventKind::kChildExit) {
        span->attributes.emplace_back("trace2.child.exitcode", absl::StrCat(e.code));
        span->attributes.push_back(Int("process.exit.code", e.code));
        if (e.pid < 0) {
          span->status_code = kStatusError;
          span->status_message = "the child process could not be started";
        } else if (e.code != 0) {
          span->status_code = kStatusError;
          span->status_message = absl::StrCat("the child process exited with code ", e.code);
        } else {
          span->status_code = kStatusOk;
        }
      } else {
        span->attributes.emplace_back("trace2.child.exitcode", "-1");
        span->attributes.emplace_back("trace2.child.ready", std::string(e.ready));
        if (e.ready != "ready") {
          span->status_code = kStatusError;
          span->status_message = absl::StrCat("the child process is not ready: ", e.ready);
        }
      }
      Close(p, span, ns, out);
      break;
    }
    case EventKind::kExec: {
      if (p.execs.contains(e.exec_id)) break;
      absl::string_view what = e.exec_exe.has_value() ? *e.exec_exe
                               : e.argv.empty()       ? absl::string_view("?")
                                                      : e.argv.front();
      Span* span =
          NewSpan(p, SpanType::kExec, &p.span, absl::StrCat("exec(", Basename(what), ")"), ns);
      span->attributes.emplace_back("trace2.span.type", "exec");
      span->attributes.emplace_back("trace2.exec.argv", JsonList(e.argv, ""));
      span->attributes.emplace_back("trace2.exec.exe",
                                    std::string(ValidUtf8(e.exec_exe.value_or(""), &scratch_)));
      span->attributes.push_back(StrArray("process.command_args", Strings(e.argv)));
      AddThreadAndSite(span, th, e);
      p.execs[e.exec_id] = span;
      break;
    }
    case EventKind::kExecResult: {
      auto it = p.execs.find(e.exec_id);
      if (it == p.execs.end()) break;
      it->second->attributes.emplace_back("trace2.exec.exitcode", absl::StrCat(e.code));
      // exec_result is only written when the exec failed (a successful exec never returns).
      it->second->status_code = kStatusError;
      it->second->status_message = absl::StrCat("exec failed with code ", e.code);
      Close(p, it->second, ns, out);
      p.execs.erase(it);
      break;
    }
    case EventKind::kThreadExit:
      if (th.span != &p.span && th.span->open) Close(p, th.span, ns, out);
      break;
    case EventKind::kDefParam: {
      const int priority = ScopePriority(e.param_scope);
      auto [it, inserted] = p.params.try_emplace(std::string(e.param));
      if (inserted || priority >= it->second.second) {
        it->second = {std::string(e.param_value.value_or("")), priority};
      }
      break;
    }
    case EventKind::kDefRepo:
      if (e.repo.has_value()) p.repos[*e.repo] = std::string(e.worktree);
      break;
    case EventKind::kRegionEnter: {
      Span* parent = th.regions.empty() ? th.span : th.regions.back();
      if (!parent->open) break;  // an event of a thread after its exit
      Span* span = NewSpan(
          p, SpanType::kRegion, parent,
          absl::StrCat("region(", e.category.empty() ? "C" : NormalizeRegionName(e.category), ",",
                       e.label.empty() ? "L" : NormalizeRegionName(e.label), ")"),
          ns);
      span->nesting = e.nesting;
      span->attributes.emplace_back("trace2.span.type", "region");
      span->attributes.emplace_back("trace2.region.repoid", absl::StrCat(e.repo.value_or(1)));
      span->attributes.emplace_back("trace2.region.nesting", absl::StrCat(e.nesting));
      if (e.msg.has_value() && !e.msg->empty()) {
        span->attributes.emplace_back("trace2.region.message",
                                      std::string(ValidUtf8(*e.msg, &scratch_)));
      }
      AddThreadAndSite(span, th, e);
      th.regions.push_back(span);
      break;
    }
    case EventKind::kRegionLeave:
      if (!th.regions.empty() && th.regions.back()->nesting == e.nesting) PopRegion(p, th, ns, out);
      break;
    case EventKind::kData:
    case EventKind::kDataJson:
      AddData(p, th, e);
      break;
    case EventKind::kTimer:
    case EventKind::kThTimer: {
      std::string json;
      JsonWriter jw(&json);
      jw.BeginObject();
      jw.ObjectInt("intervals", static_cast<int64_t>(e.intervals));
      jw.ObjectDouble("total_sec", 6, e.t_total);
      jw.ObjectDouble("min_sec", 6, e.t_min);
      jw.ObjectDouble("max_sec", 6, e.t_max);
      jw.End();
      JsonMap& map = e.kind == EventKind::kTimer ? p.timers : th.span->timers;
      map[std::string(e.category)][std::string(e.label)] = std::move(json);
      break;
    }
    case EventKind::kCounter:
    case EventKind::kThCounter: {
      JsonMap& map = e.kind == EventKind::kCounter ? p.counters : th.span->counters;
      map[std::string(e.category)][std::string(e.label)] = absl::StrCat(e.count);
      break;
    }
    default:
      break;  // printf, cmd_path, too_many_files, experimental: no span data
  }
  if (e.kind == EventKind::kAtexit || e.kind == EventKind::kSignal) EndProcess(p, out);
}

std::string OtlpFormatter::ExeVerbMode(const Process& p, std::string* exe,
                                       std::string* exe_verb) const {
  *exe = p.argv.empty() ? std::string("unknown") : std::string(Basename(p.argv.front()));
  if (exe->size() > 4 && absl::AsciiStrToLower(exe->substr(exe->size() - 4)) == ".exe") {
    exe->resize(exe->size() - 4);
  }
  *exe_verb = *exe;
  if (!p.verb.empty()) {
    absl::StrAppend(exe_verb, ":",
                    p.verb == "_run_dashed_" && p.argv.size() > 1 ? p.argv[1] : p.verb);
  }
  return p.mode.empty() ? *exe_verb : absl::StrCat(*exe_verb, "#", p.mode);
}

void OtlpFormatter::ProcessAttributes(Process& p) {
  std::string exe;
  std::string exe_verb;
  const std::string exe_verb_mode = ExeVerbMode(p, &exe, &exe_verb);
  p.span.name = exe_verb_mode;
  auto& attrs = p.span.attributes;
  attrs.clear();
  attrs.emplace_back("trace2.span.type", "process");
#if defined(__x86_64__)
  attrs.emplace_back("trace2.machine.arch", "amd64");
#elif defined(__aarch64__)
  attrs.emplace_back("trace2.machine.arch", "arm64");
#endif
  attrs.emplace_back("trace2.machine.os", "linux");
  attrs.emplace_back("trace2.cmd.name", exe);
  attrs.emplace_back("trace2.cmd.name_verb", exe_verb);
  attrs.emplace_back("trace2.cmd.name_verb_mode", exe_verb_mode);
  attrs.emplace_back("trace2.cmd.hierarchy", p.hierarchy);
  attrs.emplace_back("trace2.cmd.exit_code", absl::StrCat(p.exit_code.value_or(-1)));
  if (const std::optional<uint32_t> pid =
          reader::PidFromSidComponent(reader::SidLastComponent(p.sid))) {
    attrs.push_back(Int("process.pid", *pid));
  }
  if (p.exit_code.has_value()) attrs.push_back(Int("process.exit.code", *p.exit_code));
  if (!p.argv.empty()) attrs.emplace_back("trace2.cmd.argv", JsonList(p.argv));
  if (!p.ancestry.empty()) attrs.emplace_back("trace2.cmd.ancestry", JsonList(p.ancestry));
  if (!p.alias_key.empty()) {
    attrs.emplace_back("trace2.cmd.alias.key", p.alias_key);
    if (!p.alias_value.empty()) {
      attrs.emplace_back("trace2.cmd.alias.value", JsonList(p.alias_value));
    }
  }
  if (p.error_fmt.has_value() && !p.error_fmt->empty()) {
    attrs.emplace_back("trace2.cmd.error.format", *p.error_fmt);
  }
  if (p.error_msg.has_value() && !p.error_msg->empty()) {
    attrs.emplace_back("trace2.cmd.error.message", *p.error_msg);
  }
  if (!p.repos.empty()) {
    std::string json;
    JsonWriter jw(&json);
    jw.BeginObject();
    for (const auto& [id, worktree] : p.repos) {
      jw.ObjectString(absl::StrCat(id), ValidUtf8(worktree, &scratch_));
    }
    jw.End();
    attrs.emplace_back("trace2.repo.set", json);
  }
  if (!p.params.empty()) {
    std::string json;
    JsonWriter jw(&json);
    jw.BeginObject();
    for (const auto& [param, value] : p.params) {
      std::string key(ValidUtf8(param, &scratch_));
      jw.ObjectString(key, ValidUtf8(value.first, &scratch_));
    }
    jw.End();
    attrs.emplace_back("trace2.param.set", json);
  }
  if (!p.span.timers.empty()) attrs.emplace_back("trace2.thread.timers", RenderMap(p.span.timers));
  if (!p.span.counters.empty()) {
    attrs.emplace_back("trace2.thread.counters", RenderMap(p.span.counters));
  }
  if (!p.data.empty()) attrs.emplace_back("trace2.process.data", RenderMap(p.data));
  if (!p.timers.empty()) attrs.emplace_back("trace2.process.timers", RenderMap(p.timers));
  if (!p.counters.empty()) attrs.emplace_back("trace2.process.counters", RenderMap(p.counters));

  // Status: ERROR for a failed process (an error event, a non-zero exit code or a signal),
  // OK for one that exited with 0, UNSET while its end is unknown.
  p.span.status_code = kStatusUnset;
  p.span.status_message.clear();
  if (p.error_msg.has_value()) {
    p.span.status_code = kStatusError;
    p.span.status_message = p.error_msg->empty() ? "error" : *p.error_msg;
  } else if (p.signo.has_value()) {
    p.span.status_code = kStatusError;
    p.span.status_message = absl::StrCat("killed by signal ", *p.signo);
  } else if (p.exit_code.has_value() && *p.exit_code != 0) {
    p.span.status_code = kStatusError;
    p.span.status_message = absl::StrCat("exit code ", *p.exit_code);
  } else if (p.exit_code.has_value()) {
    p.span.status_code = kStatusOk;
  }
  p.span.events = p.errors;
}

void OtlpFormatter::WriteAttribute(JsonWriter& jw, absl::string_view key, absl::string_view value) {
  jw.ArrayBeginObject();
  jw.ObjectString("key", key);
  jw.ObjectBeginObject("value");
  jw.ObjectString("stringValue", ValidUtf8(value, &scratch_));
  jw.End();
  jw.End();
}

void OtlpFormatter::WriteAttribute(JsonWriter& jw, const Attribute& attribute) {
  switch (attribute.type) {
    case Attribute::Type::kString:
      WriteAttribute(jw, attribute.key, attribute.text);
      return;
    case Attribute::Type::kInt:
      jw.ArrayBeginObject();
      jw.ObjectString("key", attribute.key);
      jw.ObjectBeginObject("value");
      // OTLP/JSON writes 64-bit integers as decimal strings (the protobuf JSON mapping).
      jw.ObjectString("intValue", absl::StrCat(attribute.number));
      jw.End();
      jw.End();
      return;
    case Attribute::Type::kStringArray:
      jw.ArrayBeginObject();
      jw.ObjectString("key", attribute.key);
      jw.ObjectBeginObject("value");
      jw.ObjectBeginObject("arrayValue");
      jw.ObjectBeginArray("values");
      for (const std::string& item : attribute.list) {
        jw.ArrayBeginObject();
        jw.ObjectString("stringValue", ValidUtf8(item, &scratch_));
        jw.End();
      }
      jw.End();  // values
      jw.End();  // arrayValue
      jw.End();  // value
      jw.End();
      return;
  }
}

void OtlpFormatter::WriteSpan(JsonWriter& jw, const Process& p, const Span& span) {
  jw.ArrayBeginObject();
  jw.ObjectString("traceId", HexId(p.ids.trace_id));
  jw.ObjectString("spanId", HexId(span.id));
  if (span.parent_id.has_value()) jw.ObjectString("parentSpanId", HexId(*span.parent_id));
  jw.ObjectString("name", ValidUtf8(span.name, &scratch_));
  jw.ObjectInt("kind", span.type == SpanType::kProcess ? kKindServer : kKindInternal);
  jw.ObjectString("startTimeUnixNano", absl::StrCat(span.start_ns));
  jw.ObjectString("endTimeUnixNano", absl::StrCat(span.end_ns));
  jw.ObjectBeginArray("attributes");
  for (const Attribute& attribute : span.attributes) WriteAttribute(jw, attribute);
  if (span.type == SpanType::kRegion && !span.data.empty()) {
    WriteAttribute(jw, "trace2.region.data", RenderMap(span.data));
  }
  if (span.type == SpanType::kThread) {
    if (!span.timers.empty()) WriteAttribute(jw, "trace2.thread.timers", RenderMap(span.timers));
    if (!span.counters.empty()) {
      WriteAttribute(jw, "trace2.thread.counters", RenderMap(span.counters));
    }
  }
  jw.End();  // attributes
  if (!span.events.empty()) {
    jw.ObjectBeginArray("events");
    for (const SpanEvent& event : span.events) {
      jw.ArrayBeginObject();
      jw.ObjectString("timeUnixNano",
                      absl::StrCat(std::clamp(event.time_ns, span.start_ns, span.end_ns)));
      jw.ObjectString("name", event.name);
      jw.ObjectBeginArray("attributes");
      for (const Attribute& attribute : event.attributes) WriteAttribute(jw, attribute);
      jw.End();
      jw.End();
    }
    jw.End();
  }
  if (span.status_code != kStatusUnset) {
    jw.ObjectBeginObject("status");
    if (!span.status_message.empty()) {
      jw.ObjectString("message", ValidUtf8(span.status_message, &scratch_));
    }
    jw.ObjectInt("code", span.status_code);
    jw.End();
  }
  jw.End();
}

void OtlpFormatter::WriteLine(Process& p, bool all, std::string* out) {
  std::string exe;
  std::string exe_verb;
  const std::string service = ExeVerbMode(p, &exe, &exe_verb);
  JsonWriter jw(out);
  jw.BeginObject();
  jw.ObjectBeginArray("resourceSpans");
  jw.ArrayBeginObject();
  jw.ObjectBeginObject("resource");
  jw.ObjectBeginArray("attributes");
  const std::pair<const char*, std::string> resource[] = {
      {"service.namespace", "trace2"},
      {"service.name", service},
      {"service.version", p.version},
      {"service.instance.id", p.sid},
      {"telemetry.sdk.name", "tracewire"},
      {"telemetry.sdk.language", "cpp"},
      {"telemetry.sdk.version", kOtlpScopeVersion},
      {"trace2.cmd.version", p.version},
      {"trace2.cmd.sid", p.sid},
  };
  for (const auto& [key, value] : resource) WriteAttribute(jw, key, value);
  // The process resource of OTel's semantic conventions, typed.
  if (const std::optional<uint32_t> pid =
          reader::PidFromSidComponent(reader::SidLastComponent(p.sid))) {
    WriteAttribute(jw, Int("process.pid", *pid));
  }
  if (const std::optional<absl::string_view> parent = reader::SidParentComponent(p.sid)) {
    if (const std::optional<uint32_t> ppid = reader::PidFromSidComponent(*parent)) {
      WriteAttribute(jw, Int("process.parent_pid", *ppid));
    }
  }
  if (!p.argv.empty()) {
    WriteAttribute(jw, "process.executable.name", exe);
    WriteAttribute(jw, StrArray("process.command_args", p.argv));
  }
  jw.End();  // attributes
  jw.End();  // resource
  jw.ObjectBeginArray("scopeSpans");
  jw.ArrayBeginObject();
  jw.ObjectBeginObject("scope");
  jw.ObjectString("name", kOtlpScopeName);
  jw.ObjectString("version", kOtlpScopeVersion);
  jw.End();
  jw.ObjectBeginArray("spans");
  if (all) WriteSpan(jw, p, p.span);
  std::vector<std::unique_ptr<Span>> kept;
  for (std::unique_ptr<Span>& span : p.spans) {
    const bool closed_leaf = !span->open && span->type != SpanType::kThread;
    if (all || closed_leaf) {
      WriteSpan(jw, p, *span);
    } else {
      kept.push_back(std::move(span));
    }
  }
  p.spans = std::move(kept);
  p.closed = 0;
  jw.End();  // spans
  jw.End();  // scope span
  jw.End();  // scopeSpans
  jw.End();  // resource span
  jw.End();  // resourceSpans
  jw.End();
  out->push_back('\n');
}

void OtlpFormatter::EndProcess(Process& p, std::string* out) {
  const int64_t end = p.ended ? std::max(p.span.end_ns, p.span.start_ns) : p.last_ns;
  // Close what is still open, innermost first, at the process's end.
  for (auto& [id, th] : p.threads) {
    while (!th.regions.empty()) PopRegion(p, th, end, out);
  }
  for (auto& [id, span] : p.children) {
    span->attributes.emplace_back("trace2.child.pid", "-1");
    span->attributes.emplace_back("trace2.child.exitcode", "-1");
    Close(p, span, end, out);
  }
  p.children.clear();
  for (auto& [id, span] : p.execs) {
    span->attributes.emplace_back("trace2.exec.exitcode", "-1");
    Close(p, span, end, out);
  }
  p.execs.clear();
  for (auto& [id, th] : p.threads) {
    if (th.span != &p.span && th.span->open) Close(p, th.span, end, out);
  }
  if (!p.ended) p.exit_code.reset();
  Close(p, &p.span, end, out);
  ProcessAttributes(p);
  WriteLine(p, /*all=*/true, out);
  const std::string sid = p.sid;
  finished_.insert(sid);
  order_.erase(std::find(order_.begin(), order_.end(), &p));
  if (last_process_ == &p) last_process_ = nullptr;
  processes_.erase(sid);  // destroys p
}

void OtlpFormatter::Finish(std::string* out) {
  while (!order_.empty()) EndProcess(*order_.front(), out);
  finished_.clear();
}

}  // namespace

std::unique_ptr<Formatter> MakeOtlpFormatter(const FormatterOptions& options) {
  return std::make_unique<OtlpFormatter>();
}

}  // namespace tracewire::targets
