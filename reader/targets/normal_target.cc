#include "reader/targets/normal_target.h"

#include "absl/strings/str_cat.h"
#include "reader/kind_table.h"
#include "reader/targets/fixed_decimal.h"
#include "reader/targets/git_text.h"
#include "reader/targets/internal_site.h"
#include "reader/targets/sq_quote.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;

// The payload of a non-brief line starts at this column (or right after a longer prefix).
constexpr size_t kPrefixWidth = 50;

// Appends the line's text after the prefix; nullptr: the kind is not written.
using PayloadFn = void (*)(const Event& e, std::string* out);

// "<name> elapsed:<t_abs> code:<value>" of exit, atexit and signal.
void Elapsed(absl::string_view name, const Event& e, int64_t value, std::string* out) {
  absl::StrAppend(out, name, " elapsed:");
  AppendFixed(e.t_abs, 6, out);
  absl::StrAppend(out, " code:", value);
}

void TimerPayload(const Event& e, std::string* out) {
  absl::StrAppend(out, reader::EventKindName(e.kind), " ", e.category, "/", e.label,
                  " intervals:", e.intervals);
  AppendTimerTotals(e.t_total, e.t_min, e.t_max, out);
}

void CounterPayload(const Event& e, std::string* out) {
  absl::StrAppend(out, reader::EventKindName(e.kind), " ", e.category, "/", e.label,
                  " value:", e.count);
}

constexpr reader::KindTable<PayloadFn> MakePayloads() {
  reader::KindTable<PayloadFn> p;
  p[EventKind::kVersion] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "version ", e.exe);
  };
  p[EventKind::kStart] = [](const Event& e, std::string* out) {
    out->append("start ");
    SqQuoteArgvPretty(e.argv, out);
  };
  p[EventKind::kExit] = [](const Event& e, std::string* out) { Elapsed("exit", e, e.code, out); };
  // git writes the signal number as "code".
  p[EventKind::kSignal] = [](const Event& e, std::string* out) {
    Elapsed("signal", e, static_cast<int64_t>(e.signo), out);
  };
  p[EventKind::kAtexit] = [](const Event& e, std::string* out) {
    Elapsed("atexit", e, e.code, out);
  };
  // The message exists iff the format was non-empty.
  p[EventKind::kError] = [](const Event& e, std::string* out) {
    out->append("error");
    if (e.msg.has_value()) absl::StrAppend(out, " ", *e.msg);
  };
  p[EventKind::kCmdPath] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "cmd_path ", e.cmd_path);
  };
  p[EventKind::kCmdAncestry] = [](const Event& e, std::string* out) {
    out->append("cmd_ancestry ");
    for (size_t i = 0; i < e.ancestry.size(); ++i) {
      if (i > 0) out->append(" <- ");
      out->append(e.ancestry[i].data(), e.ancestry[i].size());
    }
  };
  p[EventKind::kCmdName] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "cmd_name ", e.cmd_name);
    if (e.cmd_hierarchy.has_value() && !e.cmd_hierarchy->empty()) {
      absl::StrAppend(out, " (", *e.cmd_hierarchy, ")");
    }
  };
  p[EventKind::kCmdMode] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "cmd_mode ", e.cmd_mode);
  };
  p[EventKind::kAlias] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "alias ", e.alias, " -> ");
    SqQuoteArgvPretty(e.argv, out);
  };
  p[EventKind::kChildStart] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "child_start[", e.child_id, "]");
    if (e.cd.has_value()) {
      out->append(" cd ");
      SqQuotePretty(*e.cd, out);
      out->push_back(';');
    }
    out->push_back(' ');
    if (e.is_git_command) out->append("git ");
    SqQuoteArgvPretty(e.argv, out);
  };
  p[EventKind::kChildExit] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "child_exit[", e.child_id, "] pid:", e.pid, " code:", e.code, " elapsed:");
    AppendFixed(e.t_rel.value_or(0), 6, out);
  };
  p[EventKind::kChildReady] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "child_ready[", e.child_id, "] pid:", e.pid, " ready:", e.ready,
                    " elapsed:");
    AppendFixed(e.t_rel.value_or(0), 6, out);
  };
  p[EventKind::kExec] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "exec[", e.exec_id, "] ");
    if (e.exec_exe.has_value()) absl::StrAppend(out, *e.exec_exe, " ");
    SqQuoteArgvPretty(e.argv, out);
  };
  p[EventKind::kExecResult] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "exec_result[", e.exec_id, "] code:", e.code);
    if (e.code > 0) absl::StrAppend(out, " err:", ErrorText(e.code));
  };
  p[EventKind::kDefParam] = [](const Event& e, std::string* out) {
    // git before 2.38 had no scope: "def_param <param>=<value>".
    out->append("def_param ");
    if (!e.param_scope.empty()) absl::StrAppend(out, "scope:", e.param_scope, " ");
    out->append(e.param.data(), e.param.size());
    if (e.param_value.has_value()) absl::StrAppend(out, "=", *e.param_value);
  };
  p[EventKind::kDefRepo] = [](const Event& e, std::string* out) {
    out->append("worktree ");
    SqQuotePretty(e.worktree, out);
  };
  // printf: the bare message, with no event name.
  p[EventKind::kPrintf] = [](const Event& e, std::string* out) {
    if (e.msg.has_value()) out->append(e.msg->data(), e.msg->size());
  };
  p[EventKind::kThTimer] = TimerPayload;
  p[EventKind::kTimer] = TimerPayload;
  p[EventKind::kThCounter] = CounterPayload;
  p[EventKind::kCounter] = CounterPayload;
  // tracewire's own events: extension lines, left out with --git_exact (Write).
  p[EventKind::kTaskBegin] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "task_begin[", e.task_id, "] ", e.category, "/", e.label,
                    " parent:", e.parent_task);
  };
  p[EventKind::kTaskEnd] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "task_end[", e.task_id, "]");
  };
  p[EventKind::kTaskAdopt] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "task_adopt[", e.task_id, "]");
  };
  p[EventKind::kTaskRelease] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "task_release[", e.task_id, "]");
  };
  p[EventKind::kGauge] = [](const Event& e, std::string* out) {
    absl::StrAppend(out, "gauge ", e.category, "/", e.label, ":", e.value_int);
    if (e.unit.has_value()) absl::StrAppend(out, " ", *e.unit);
  };
  // Not written: too_many_files, thread_start, thread_exit, region_enter, region_leave,
  // data, data_json, experimental.
  return p;
}

constexpr reader::KindTable<PayloadFn> kPayloads = MakePayloads();

}  // namespace

NormalTarget::NormalTarget(const FormatterOptions& options)
    : brief_(options.brief), git_exact_(options.git_exact) {}

void NormalTarget::Write(const Event& e, std::string* out) {
  const PayloadFn payload = kPayloads[e.kind];
  if (payload == nullptr) return;
  if (git_exact_ && reader::IsExtensionKind(e.kind)) return;
  const size_t line_start = out->size();
  if (!brief_) {
    time_text_.Append(e.local_time(), out);
    out->push_back(' ');
    absl::string_view file;
    int64_t line;
    SiteOf(e, kNormalInternalSites, git_exact_, &file, &line);
    if (!file.empty()) absl::StrAppend(out, file, ":", line, " ");
    const size_t prefix = out->size() - line_start;
    if (prefix < kPrefixWidth) out->append(kPrefixWidth - prefix, ' ');
  }
  payload(e, out);
  // strbuf_complete_line: end the line unless it is empty or already ends in '\n' (an
  // empty brief printf writes nothing at all, as git's empty write).
  if (out->size() > line_start && out->back() != '\n') out->push_back('\n');
}

}  // namespace tracewire::targets
