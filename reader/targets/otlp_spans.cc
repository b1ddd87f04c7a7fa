#include "reader/targets/otlp_spans.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "reader/sid_parts.h"
#include "reader/targets/json_check.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/otlp_attribute_json.h"
#include "reader/targets/output_cursor.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::otlp {
namespace {

using reader::Event;
using reader::EventKind;

constexpr size_t kMaxClosedSpans = 10000;
// Gauge samples a process holds before they are written as a metrics line of their own.
constexpr size_t kMaxGaugePoints = 10000;
// Errors of one process kept as span events (the first is also the status message).
constexpr size_t kMaxErrorEvents = 100;
// Attributes a span has room for from its start (a region has up to 9, a child 13).
constexpr size_t kSpanAttributes = 10;

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

// trace2receiver's normalizeForRegionDisplayName of each byte: ASCII letters in lower
// case, ' ', '-', '.', ',', ':', '(' and ')' as '_', every other byte as it is.
constexpr std::array<char, 256> MakeNormalizedBytes() {
  std::array<char, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = static_cast<char>(c);
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = static_cast<char>(c - 'A' + 'a');
  for (const char c : {' ', '-', '.', ',', ':', '(', ')'})
    table[static_cast<unsigned char>(c)] = '_';
  return table;
}
constexpr std::array<char, 256> kNormalizedBytes = MakeNormalizedBytes();

// Appends trace2receiver's normalizeForRegionDisplayName of `value` to *out.
void AppendNormalizedName(absl::string_view value, std::string* out) {
  const size_t start = out->size();
  out->resize(start + value.size());
  char* to = out->data() + start;
  for (const char c : value) *to++ = kNormalizedBytes[static_cast<unsigned char>(c)];
}

// Sets *out to "<kind>(<category>,<label>)" with both normalized ("C" and "L" when empty).
void SliceName(absl::string_view kind, const Event& e, std::string* out) {
  out->assign(kind.data(), kind.size());
  out->push_back('(');
  if (e.category.empty()) {
    out->push_back('C');
  } else {
    AppendNormalizedName(e.category, out);
  }
  out->push_back(',');
  if (e.label.empty()) {
    out->push_back('L');
  } else {
    AppendNormalizedName(e.label, out);
  }
  out->push_back(')');
}

}  // namespace

std::string RenderMap(const JsonMap& map) {
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

void Span::Reset() {
  type = SpanType::kRegion;
  id = {};
  parent_id.reset();
  parent = nullptr;
  name.clear();
  start_ns = 0;
  end_ns = 0;
  open = true;
  max_child_end = kNoTime;
  attributes_json.clear();
  attributes.clear();
  status_code = kStatusUnset;
  status_message.clear();
  events.clear();
  data.Clear();
  timers.clear();
  counters.clear();
}

bool InLine(const Span& span, bool all) {
  return all || (!span.open && span.type != SpanType::kThread);
}

std::string SpanBuilder::JsonString(absl::string_view value) {
  std::string out;
  AppendJsonString(ValidUtf8(value, &scratch_), &out);
  return out;
}

std::string SpanBuilder::JsonList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonString(ValidUtf8(items[i], &scratch_), &out);
  }
  out.push_back(']');
  return out;
}

std::string SpanBuilder::JsonList(const std::vector<absl::string_view>& items,
                                  absl::string_view first) {
  std::vector<std::string> all;
  if (!first.empty()) all.emplace_back(first);
  for (absl::string_view item : items) all.emplace_back(item);
  return JsonList(all);
}

Span* SpanBuilder::NewSpan(Process& p, SpanType type, Span* parent, absl::string_view name,
                           int64_t ns) {
  std::unique_ptr<Span> span;
  if (free_spans_.empty()) {
    span = std::make_unique<Span>();
    span->attributes.reserve(kSpanAttributes);
  } else {
    span = std::move(free_spans_.back());
    free_spans_.pop_back();
    span->Reset();
  }
  span->type = type;
  uint64_t id = 0;
  while (id == 0) id = SplitMix64(p.id_seed ^ SplitMix64(++p.next_span));
  for (int i = 7; i >= 0; --i, id >>= 8) span->id[i] = static_cast<uint8_t>(id);
  span->parent_id = parent->id;
  span->parent = parent;
  span->name.assign(name.data(), name.size());
  span->start_ns = std::max(ns, parent->start_ns);
  p.spans.push_back(std::move(span));
  return p.spans.back().get();
}

void SpanBuilder::Close(Process& p, Span* span, int64_t ns) {
  span->end_ns = std::max({ns, span->start_ns, span->max_child_end});
  span->open = false;
  if (span->parent != nullptr) {
    span->parent->max_child_end = std::max(span->parent->max_child_end, span->end_ns);
    span->parent = nullptr;
  }
  if (span->type != SpanType::kThread && span->type != SpanType::kProcess &&
      ++p.closed >= kMaxClosedSpans) {
    WriteLine(p, /*all=*/false);
  }
}

void SpanBuilder::WriteLine(Process& p, bool all) {
  if (out_ != nullptr) write_line_(p, all, out_);
  // The spans written go back to the pool; the others keep their order.
  size_t kept = 0;
  for (std::unique_ptr<Span>& span : p.spans) {
    if (InLine(*span, all)) {
      free_spans_.push_back(std::move(span));
    } else {
      p.spans[kept++] = std::move(span);
    }
  }
  p.spans.resize(kept);
  p.closed = 0;
}

void SpanBuilder::AddThreadAndSite(Span* span, const Thread& th, const Event& e) {
  span->attributes.push_back(Int("thread.id", static_cast<int64_t>(th.id)));
  span->attributes.emplace_back("thread.name", th.name);
  if (!e.file.empty()) {
    span->attributes.emplace_back("code.filepath", std::string(e.file));
    if (e.line > 0) span->attributes.push_back(Int("code.lineno", e.line));
  }
}

void SpanBuilder::OnProcessBegin(const reader::ProcessTrack& track, const Event& first) {
  auto process = std::make_unique<Process>();
  Process& p = *process;
  p.index = track.index;
  p.sid = track.sid;
  p.ids = ProcessIdsFromSid(track.sid);
  p.trace_hex = HexId(p.ids.trace_id);
  for (uint8_t b : p.ids.span_id) p.id_seed = (p.id_seed << 8) | b;
  p.span.type = SpanType::kProcess;
  p.span.id = p.ids.span_id;
  p.span.parent_id = p.ids.parent_span_id;
  p.span.start_ns = absl::ToUnixNanos(first.time);
  order_.push_back(&p);
  if (processes_.size() <= track.index) processes_.resize(track.index + 1);
  processes_[track.index] = std::move(process);
}

void SpanBuilder::OnSliceBegin(const reader::Slice& slice, const Event& e) {
  Process* process = processes_[slice.process].get();
  if (process == nullptr) return;  // events after the process's end
  Process& p = *process;
  switch (slice.kind) {
    case reader::SliceKind::kThread: {
      if (threads_.size() <= slice.thread) threads_.resize(slice.thread + 1);
      Thread& th = threads_[slice.thread];
      th.id = e.thread_tid != 0 ? e.thread_tid : e.thread_id;  // kernel tid, else number
      th.name = std::string(e.thread_name);
      th.attributes_json.clear();
      {
        OutputCursor c(&th.attributes_json);
        PutIntAttribute("thread.id", static_cast<int64_t>(th.id), c);
        c.Put(',');
        PutStringAttribute("thread.name", th.name, &scratch_, c);
      }
      if (e.thread_name == "main") {
        th.span = &p.span;
      } else {
        th.span = NewSpan(p, SpanType::kThread, &p.span, e.thread_name, now_ns_);
        th.span->attributes.emplace_back("trace2.span.type", "thread");
        th.span->attributes.push_back(Int("thread.id", static_cast<int64_t>(th.id)));
        th.span->attributes.emplace_back("thread.name", th.name);
      }
      return;
    }
    case reader::SliceKind::kRegion:
      BeginRegion(p, slice, e);
      return;
    case reader::SliceKind::kChild:
      BeginChild(p, slice, e);
      return;
    case reader::SliceKind::kExec:
      BeginExec(p, slice, e);
      return;
    case reader::SliceKind::kTask:
      BeginTask(p, slice, e);
      return;
    case reader::SliceKind::kTaskSegment:
      return;  // a task's regions on worker threads are its children (BeginRegion)
  }
}

void SpanBuilder::BeginTask(Process& p, const reader::Slice& slice, const Event& e) {
  const Thread& th = threads_[slice.thread];
  SliceName("task", e, &name_);
  Span* span = NewSpan(p, SpanType::kTask, &p.span, name_, now_ns_);
  // Its parent: its parent task while that one is open, else the process.
  if (auto it = p.tasks.find(slice.task); slice.task != 0 && it != p.tasks.end()) {
    span->parent_id = it->second->id;
    span->start_ns = std::max(span->start_ns, it->second->start_ns);
  }
  span->attributes.emplace_back("trace2.span.type", "task");
  span->attributes.emplace_back("tracewire.task.id", absl::StrCat(slice.id));
  if (slice.task != 0)
    span->attributes.emplace_back("tracewire.task.parent", absl::StrCat(slice.task));
  span->attributes.emplace_back("tracewire.task.category",
                                std::string(ValidUtf8(e.category, &scratch_)));
  span->attributes.emplace_back("tracewire.task.name", std::string(ValidUtf8(e.label, &scratch_)));
  AddThreadAndSite(span, th, e);
  SlotSpan(slice.slot) = span;
  p.tasks[slice.id] = span;
}

void SpanBuilder::WriteMetrics(Process& p) {
  if (p.gauge_points == 0) return;
  if (out_ != nullptr) write_metrics_(p, out_);
  for (auto& [index, series] : p.gauges) series.points.clear();
  p.gauge_points = 0;
}

void SpanBuilder::BeginRegion(Process& p, const reader::Slice& slice, const Event& e) {
  const Thread& th = threads_[slice.thread];
  Span* parent = slice.parent == reader::kNoIndex ? th.span : slot_spans_[slice.parent];
  Span*& slot = SlotSpan(slice.slot);
  slot = nullptr;
  // An event of a thread after its exit (and the regions inside such a region): no span.
  if (parent == nullptr || !parent->open) return;
  SliceName("region", e, &name_);
  Span* span = NewSpan(p, SpanType::kRegion, parent, name_, now_ns_);
  // The outermost region of a thread working for an open task is the task's child (its
  // span parent only: the thread span keeps its times, as the task may end first).
  // Its attributes are written as text now: tracewire.task.id, trace2.span.type,
  // trace2.region.repoid, trace2.region.nesting, trace2.region.message, thread.id,
  // thread.name, code.filepath and code.lineno, as AddThreadAndSite and the line writer
  // would write them.
  OutputCursor c(&span->attributes_json);
  if (slice.parent == reader::kNoIndex && slice.task != 0) {
    if (auto it = p.tasks.find(slice.task); it != p.tasks.end()) {
      span->parent_id = it->second->id;
      PutAttributeKey("tracewire.task.id", c);
      c.PutLiteral(",\"value\":{\"stringValue\":\"");
      c.PutUint(slice.task);
      c.PutLiteral("\"}},");
    }
  }
  c.PutLiteral(
      "{\"key\":\"trace2.span.type\",\"value\":{\"stringValue\":\"region\"}},"
      "{\"key\":\"trace2.region.repoid\",\"value\":{\"stringValue\":\"");
  c.PutInt(e.repo.value_or(1));
  c.PutLiteral("\"}},{\"key\":\"trace2.region.nesting\",\"value\":{\"stringValue\":\"");
  c.PutInt(e.nesting);
  c.PutLiteral("\"}},");
  if (e.msg.has_value() && !e.msg->empty()) {
    PutStringAttribute("trace2.region.message", *e.msg, &scratch_, c);
    c.Put(',');
  }
  c.Put(th.attributes_json);
  if (!e.file.empty()) {
    if (e.file != site_file_) {
      site_file_.assign(e.file.data(), e.file.size());
      site_json_.clear();
      OutputCursor site(&site_json_);
      site.Put(',');
      PutStringAttribute("code.filepath", site_file_, &scratch_, site);
    }
    c.Put(site_json_);
    if (e.line > 0) {
      c.Put(',');
      PutIntAttribute("code.lineno", e.line, c);
    }
  }
  slot = span;
}

void SpanBuilder::BeginChild(Process& p, const reader::Slice& slice, const Event& e) {
  const Thread& th = threads_[slice.thread];
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
  Span* span = NewSpan(p, SpanType::kChild, &p.span, name, now_ns_);
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
  SlotSpan(slice.slot) = span;
}

void SpanBuilder::BeginExec(Process& p, const reader::Slice& slice, const Event& e) {
  const Thread& th = threads_[slice.thread];
  absl::string_view what = e.exec_exe.has_value() ? *e.exec_exe
                           : e.argv.empty()       ? absl::string_view("?")
                                                  : e.argv.front();
  Span* span =
      NewSpan(p, SpanType::kExec, &p.span, absl::StrCat("exec(", Basename(what), ")"), now_ns_);
  span->attributes.emplace_back("trace2.span.type", "exec");
  span->attributes.emplace_back("trace2.exec.argv", JsonList(e.argv, ""));
  span->attributes.emplace_back("trace2.exec.exe",
                                std::string(ValidUtf8(e.exec_exe.value_or(""), &scratch_)));
  span->attributes.push_back(StrArray("process.command_args", Strings(e.argv)));
  AddThreadAndSite(span, th, e);
  SlotSpan(slice.slot) = span;
}

void SpanBuilder::OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end) {
  Process* process = processes_[slice.process].get();
  if (process == nullptr) return;
  Process& p = *process;
  // Only a slice's own end event tells how it ended (else it ends with its process).
  const Event* e = end.cause == reader::SliceEnd::kEndEvent ? end.event : nullptr;
  switch (slice.kind) {
    case reader::SliceKind::kThread: {
      const Thread& th = threads_[slice.thread];
      if (th.span != &p.span && th.span->open) Close(p, th.span, now_ns_);
      return;
    }
    case reader::SliceKind::kRegion:
      if (Span* span = slot_spans_[slice.slot]; span != nullptr) Close(p, span, now_ns_);
      return;
    case reader::SliceKind::kChild:
      EndChild(p, slot_spans_[slice.slot], e);
      return;
    case reader::SliceKind::kExec:
      EndExec(p, slot_spans_[slice.slot], e);
      return;
    case reader::SliceKind::kTask: {
      p.tasks.erase(slice.id);
      if (Span* span = slot_spans_[slice.slot]; span != nullptr) Close(p, span, now_ns_);
      return;
    }
    case reader::SliceKind::kTaskSegment:
      return;
  }
}

void SpanBuilder::EndChild(Process& p, Span* span, const Event* end_event) {
  if (end_event == nullptr) {  // still running when its process ended
    span->attributes.emplace_back("trace2.child.pid", "-1");
    span->attributes.emplace_back("trace2.child.exitcode", "-1");
    Close(p, span, now_ns_);
    return;
  }
  const Event& e = *end_event;
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
  Close(p, span, now_ns_);
}

void SpanBuilder::EndExec(Process& p, Span* span, const Event* e) {
  if (e == nullptr) {  // still pending when its process ended
    span->attributes.emplace_back("trace2.exec.exitcode", "-1");
    Close(p, span, now_ns_);
    return;
  }
  span->attributes.emplace_back("trace2.exec.exitcode", absl::StrCat(e->code));
  // exec_result is only written when the exec failed (a successful exec never returns).
  span->status_code = kStatusError;
  span->status_message = absl::StrCat("exec failed with code ", e->code);
  Close(p, span, now_ns_);
}

void SpanBuilder::OnEvent(const Event& e, const reader::EventTracks& at) {
  at_ = at;
  Process* process = processes_[at.process].get();
  if (process == nullptr) return;  // events after the process's end
  Process& p = *process;
  const int64_t ns = now_ns_;
  p.last_ns = std::max(p.last_ns, ns);
  const Thread& th = threads_[at.thread];
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
    case EventKind::kData:
    case EventKind::kDataJson:
      AddData(p, at.thread, e);
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
    case EventKind::kGauge: {
      if (at.gauge == reader::kNoIndex) break;
      GaugeSeries& series = p.gauges[at.gauge];
      if (series.name.empty()) {
        series.category = std::string(e.category);
        series.name = std::string(e.label);
        series.unit = std::string(e.unit.value_or(""));
      }
      series.points.emplace_back(ns, e.value_int);
      if (++p.gauge_points >= kMaxGaugePoints) WriteMetrics(p);
      break;
    }
    case EventKind::kCpuSample:
      ++p.cpu_samples;  // the process span's tracewire.cpu_samples
      break;
    case EventKind::kCpuSamplesLost:
      p.cpu_samples_lost += e.count;  // the process span's tracewire.cpu_samples_lost
      break;
    default:
      break;  // printf, cmd_path, too_many_files, experimental: no span data
  }
}

void SpanBuilder::Add(const Event& e, std::string* out) {
  out_ = out;
  now_ns_ = absl::ToUnixNanos(e.time);
  model_.Add(e, *this);
  if (e.kind == EventKind::kAtexit || e.kind == EventKind::kSignal) {
    if (Process* p = processes_[at_.process].get(); p != nullptr) EndProcess(*p);
  }
}

void SpanBuilder::EndProcess(Process& p) {
  const int64_t end = p.ended ? std::max(p.span.end_ns, p.span.start_ns) : p.last_ns;
  // Close what is still open at the process's end: the regions, innermost first, the
  // children, the execs, the threads.
  now_ns_ = end;
  model_.EndProcess(p.index, absl::FromUnixNanos(end), *this);
  if (!p.ended) p.exit_code.reset();
  Close(p, &p.span, end);
  if (out_ != nullptr) ProcessAttributes(p);  // for the line only (p is dropped after it)
  WriteLine(p, /*all=*/true);
  WriteMetrics(p);
  order_.erase(std::find(order_.begin(), order_.end(), &p));
  processes_[p.index].reset();  // destroys p
}

void SpanBuilder::Finish(std::string* out) {
  out_ = out;
  while (!order_.empty()) EndProcess(*order_.front());
  model_ = reader::TrackModel();
  processes_.clear();
  threads_.clear();
  slot_spans_.clear();
}

}  // namespace tracewire::targets::otlp
