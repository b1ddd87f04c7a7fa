// The process span's name and attributes (SpanBuilder::ProcessAttributes, otlp_spans.h).
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "reader/sid_parts.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/otlp_spans.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::otlp {
namespace {

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string ExeVerbMode(const Process& p, std::string* exe, std::string* exe_verb) {
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

void SpanBuilder::ProcessAttributes(Process& p) {
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
  if (p.cpu_samples != 0) {
    attrs.push_back(Int("tracewire.cpu_samples", static_cast<int64_t>(p.cpu_samples)));
  }
  if (p.cpu_samples_lost != 0) {
    attrs.push_back(Int("tracewire.cpu_samples_lost", static_cast<int64_t>(p.cpu_samples_lost)));
  }
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

}  // namespace tracewire::targets::otlp
