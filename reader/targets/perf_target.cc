#include "reader/targets/perf_target.h"

#include <algorithm>

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

constexpr size_t kFileLineWidth = 28;
constexpr size_t kThreadWidth = 24;
constexpr size_t kEventNameWidth = 12;
constexpr size_t kRepoWidth = 3;
constexpr size_t kCategoryWidth = 12;

// Appends the payload column.
using PayloadFn = void (*)(const Event& e, std::string* out);

// Where the category column comes from.
enum class Category : uint8_t { kNone, kSite, kScope };

// What the PERF target writes for one kind of event.
struct KindRule {
  PayloadFn payload = nullptr;  // nullptr: the kind is not written
  bool t_abs = false;
  bool t_rel = false;
  Category category = Category::kNone;
};

// Appends `text` left-aligned in `width` bytes ("%-*s"), cut to `width` if `truncate`.
void AppendPadded(absl::string_view text, size_t width, bool truncate, std::string* out) {
  if (truncate && text.size() > width) text = text.substr(0, width);
  out->append(text.data(), text.size());
  if (text.size() < width) out->append(width - text.size(), ' ');
}

void TaskPayload(const Event& e, std::string* out) { absl::StrAppend(out, "task:", e.task_id); }

void QuotedArgvList(const Event& e, std::string* out) {
  SqQuoteArgvPretty(e.argv, out);
  out->push_back(']');
}

// "label:<label>" and " <msg>" of region events.
void RegionPayload(const Event& e, std::string* out) {
  if (!e.label.empty()) absl::StrAppend(out, "label:", e.label);
  if (e.msg.has_value()) absl::StrAppend(out, " ", *e.msg);
}

void TimerPayload(const Event& e, std::string* out) {
  absl::StrAppend(out, "name:", e.label, " intervals:", e.intervals);
  AppendTimerTotals(e.t_total, e.t_min, e.t_max, out);
}

void CounterPayload(const Event& e, std::string* out) {
  absl::StrAppend(out, "name:", e.label, " value:", e.count);
}

// Payloads that are one piece of text.
void Empty(const Event&, std::string*) {}
void Msg(const Event& e, std::string* out) {
  if (e.msg.has_value()) out->append(e.msg->data(), e.msg->size());
}

constexpr reader::KindTable<KindRule> MakeRules() {
  reader::KindTable<KindRule> r;
  r[EventKind::kVersion] = {
      [](const Event& e, std::string* out) { out->append(e.exe.data(), e.exe.size()); }};
  // kTooManyFiles: EVENT only.
  r[EventKind::kStart] = {[](const Event& e, std::string* out) { SqQuoteArgvPretty(e.argv, out); },
                          true};
  r[EventKind::kExit] = {
      [](const Event& e, std::string* out) { absl::StrAppend(out, "code:", e.code); }, true};
  r[EventKind::kSignal] = {
      [](const Event& e, std::string* out) { absl::StrAppend(out, "signo:", e.signo); }, true};
  r[EventKind::kAtexit] = {
      [](const Event& e, std::string* out) { absl::StrAppend(out, "code:", e.code); }, true};
  // The message exists iff the format was non-empty.
  r[EventKind::kError] = {Msg};
  r[EventKind::kCmdPath] = {
      [](const Event& e, std::string* out) { out->append(e.cmd_path.data(), e.cmd_path.size()); }};
  r[EventKind::kCmdAncestry] = {[](const Event& e, std::string* out) {
    out->append("ancestry:[");
    SqQuoteArgvPretty(e.ancestry, out);
    out->push_back(']');
  }};
  r[EventKind::kCmdName] = {[](const Event& e, std::string* out) {
    out->append(e.cmd_name.data(), e.cmd_name.size());
    if (e.cmd_hierarchy.has_value() && !e.cmd_hierarchy->empty()) {
      absl::StrAppend(out, " (", *e.cmd_hierarchy, ")");
    }
  }};
  r[EventKind::kCmdMode] = {
      [](const Event& e, std::string* out) { out->append(e.cmd_mode.data(), e.cmd_mode.size()); }};
  r[EventKind::kAlias] = {[](const Event& e, std::string* out) {
    absl::StrAppend(out, "alias:", e.alias, " argv:[");
    QuotedArgvList(e, out);
  }};
  r[EventKind::kChildStart] = {
      [](const Event& e, std::string* out) {
        if (e.hook_name.has_value()) {
          absl::StrAppend(out, "[ch", e.child_id, "] class:hook hook:", *e.hook_name);
        } else {
          absl::StrAppend(out, "[ch", e.child_id, "] class:", e.child_class);
        }
        if (e.cd.has_value()) {
          out->append(" cd:");
          SqQuotePretty(*e.cd, out);
        }
        out->append(" argv:[");
        if (e.is_git_command) {
          out->append(e.argv.empty() ? "git" : "git ");
        }
        QuotedArgvList(e, out);
      },
      true};
  r[EventKind::kChildExit] = {[](const Event& e, std::string* out) {
                                absl::StrAppend(out, "[ch", e.child_id, "] pid:", e.pid,
                                                " code:", e.code);
                              },
                              true, true};
  r[EventKind::kChildReady] = {[](const Event& e, std::string* out) {
                                 absl::StrAppend(out, "[ch", e.child_id, "] pid:", e.pid,
                                                 " ready:", e.ready);
                               },
                               true, true};
  r[EventKind::kExec] = {[](const Event& e, std::string* out) {
                           absl::StrAppend(out, "id:", e.exec_id, " argv:[");
                           if (e.exec_exe.has_value()) {
                             out->append(e.exec_exe->data(), e.exec_exe->size());
                             if (!e.argv.empty()) out->push_back(' ');
                           }
                           QuotedArgvList(e, out);
                         },
                         true};
  r[EventKind::kExecResult] = {[](const Event& e, std::string* out) {
                                 absl::StrAppend(out, "id:", e.exec_id, " code:", e.code);
                                 if (e.code > 0) absl::StrAppend(out, " err:", ErrorText(e.code));
                               },
                               true};
  r[EventKind::kThreadStart] = {Empty, true};
  r[EventKind::kThreadExit] = {Empty, true, true};
  r[EventKind::kDefParam] = {[](const Event& e, std::string* out) {
                               out->append(e.param.data(), e.param.size());
                               if (e.param_value.has_value()) {
                                 absl::StrAppend(out, ":", *e.param_value);
                               }
                             },
                             false, false, Category::kScope};
  r[EventKind::kDefRepo] = {[](const Event& e, std::string* out) {
    out->append("worktree:");
    SqQuotePretty(e.worktree, out);
  }};
  r[EventKind::kRegionEnter] = {RegionPayload, true, false, Category::kSite};
  r[EventKind::kRegionLeave] = {RegionPayload, true, true, Category::kSite};
  // data_int's value_string is its decimal form; data_json's is the caller's JSON as is.
  r[EventKind::kData] = {
      [](const Event& e, std::string* out) { absl::StrAppend(out, e.label, ":", e.value_string); },
      true, true, Category::kSite};
  r[EventKind::kDataJson] = r[EventKind::kData];
  r[EventKind::kPrintf] = {Msg, true};
  r[EventKind::kThTimer] = {TimerPayload, false, false, Category::kSite};
  r[EventKind::kTimer] = {TimerPayload, false, false, Category::kSite};
  r[EventKind::kThCounter] = {CounterPayload, false, false, Category::kSite};
  r[EventKind::kCounter] = {CounterPayload, false, false, Category::kSite};
  // tracewire's own events: extension lines, left out with --git_exact (Write).
  r[EventKind::kTaskBegin] = {[](const Event& e, std::string* out) {
                                absl::StrAppend(out, "task:", e.task_id, " parent:", e.parent_task,
                                                " name:", e.label);
                              },
                              true, false, Category::kSite};
  r[EventKind::kTaskEnd] = {TaskPayload, true};
  r[EventKind::kTaskAdopt] = {TaskPayload, true};
  r[EventKind::kTaskRelease] = {TaskPayload, true};
  r[EventKind::kGauge] = {[](const Event& e, std::string* out) {
                            absl::StrAppend(out, e.label, ":", e.value_int);
                            if (e.unit.has_value()) absl::StrAppend(out, " unit:", *e.unit);
                          },
                          true, false, Category::kSite};
  return r;
}

constexpr reader::KindTable<KindRule> kRules = MakeRules();

constexpr char kDots[] =
    "................................................................................";

}  // namespace

PerfTarget::PerfTarget(const FormatterOptions& options)
    : brief_(options.brief), git_exact_(options.git_exact) {}

void PerfTarget::Write(const Event& e, std::string* out) {
  const KindRule& rule = kRules[e.kind];
  if (rule.payload == nullptr) return;
  if (git_exact_ && reader::IsExtensionKind(e.kind)) return;
  const size_t line_start = out->size();

  if (!brief_) {
    time_text_.Append(e.local_time(), out);
    out->push_back(' ');
    const size_t field_end = out->size() + kFileLineWidth;
    absl::string_view file;
    int64_t line;
    SiteOf(e, kPerfInternalSites, git_exact_, &file, &line);
    if (!file.empty()) {
      scratch_.clear();
      absl::StrAppend(&scratch_, file, ":", line);
      if (scratch_.size() <= kFileLineWidth) {
        out->append(scratch_);
      } else {
        const size_t keep = kFileLineWidth - 3;
        out->append("...");
        out->append(scratch_, scratch_.size() - keep, keep);
      }
    }
    if (out->size() < field_end) out->append(field_end - out->size(), ' ');
    out->append(" | ");
  }

  absl::StrAppend(out, "d", e.depth, " | ");
  AppendPadded(e.thread_name, kThreadWidth, /*truncate=*/true, out);
  out->append(" | ");
  AppendPadded(reader::EventKindName(e.kind), kEventNameWidth, /*truncate=*/false, out);
  out->append(" | ");

  const size_t repo_end = out->size() + kRepoWidth;
  if (e.repo.has_value()) absl::StrAppend(out, "r", *e.repo, " ");
  if (out->size() < repo_end) out->append(repo_end - out->size(), ' ');
  out->append(" | ");

  if (rule.t_abs) {
    AppendFixedPadded(e.t_abs, 9, 6, out);
    out->append(" | ");
  } else {
    out->append("          | ");
  }
  if (rule.t_rel) {
    AppendFixedPadded(e.t_rel.value_or(0), 9, 6, out);
    out->append(" | ");
  } else {
    out->append("          | ");
  }

  switch (rule.category) {
    case Category::kNone:
      AppendPadded("", kCategoryWidth, true, out);
      break;
    case Category::kSite:
      AppendPadded(e.category, kCategoryWidth, true, out);
      break;
    case Category::kScope:
      scratch_.clear();
      // git before 2.38 had no scope and left the column blank.
      if (!e.param_scope.empty()) absl::StrAppend(&scratch_, "scope:", e.param_scope);
      AppendPadded(scratch_, kCategoryWidth, true, out);
      break;
  }
  out->append(" | ");

  for (int dots = (e.nesting - 1) * 2; dots > 0;) {
    const int n = std::min<int>(dots, sizeof(kDots) - 1);
    out->append(kDots, n);
    dots -= n;
  }
  rule.payload(e, out);
  // strbuf_complete_line: end the line unless the payload already did.
  if (out->size() > line_start && out->back() != '\n') out->push_back('\n');
}

}  // namespace tracewire::targets
