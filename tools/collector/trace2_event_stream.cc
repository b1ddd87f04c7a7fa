#include "tools/collector/trace2_event_stream.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "format/event_spec.h"
#include "tools/trace2_import/trace2_import.h"
#include "tools/trace2_import/trace2_line.h"

namespace tracewire::tools {

absl::Status Trace2EventStream::AppendStream(absl::string_view bytes, absl::Time now) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    if (newline == absl::string_view::npos) {
      if (partial_.size() + bytes.size() > limits_.max_line) {
        return absl::ResourceExhaustedError(
            absl::StrCat("an EVENT line longer than ", limits_.max_line, " bytes"));
      }
      partial_.append(bytes.data(), bytes.size());
      buffered_ += bytes.size();
      if (buffered_ > limits_.max_buffered) {
        return absl::ResourceExhaustedError(
            absl::StrCat("more than ", limits_.max_buffered, " bytes of EVENT lines held"));
      }
      return absl::OkStatus();
    }
    absl::string_view line = bytes.substr(0, newline);
    bytes.remove_prefix(newline + 1);
    std::string joined;
    if (!partial_.empty()) {
      if (partial_.size() + line.size() > limits_.max_line) {
        return absl::ResourceExhaustedError(
            absl::StrCat("an EVENT line longer than ", limits_.max_line, " bytes"));
      }
      buffered_ -= partial_.size();
      joined = std::move(partial_);
      partial_.clear();
      joined.append(line.data(), line.size());
      line = joined;
    }
    if (absl::Status s = AddLine(line, now); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Trace2EventStream::AppendLine(absl::string_view line, absl::Time now) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (line.size() > limits_.max_line) {
    return absl::ResourceExhaustedError(
        absl::StrCat("an EVENT line longer than ", limits_.max_line, " bytes"));
  }
  return AddLine(line, now);
}

absl::Status Trace2EventStream::AddLine(absl::string_view line, absl::Time now) {
  ++line_number_;
  if (absl::StripAsciiWhitespace(line).empty()) return absl::OkStatus();
  absl::StatusOr<Trace2Line> parsed = ParseTrace2Line(line, line_number_);
  if (!parsed.ok()) return parsed.status();
  auto it = processes_.find(parsed->sid);
  if (it == processes_.end()) {
    if (processes_.size() >= limits_.max_processes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("more than ", limits_.max_processes, " git processes open"));
    }
    it = processes_.try_emplace(parsed->sid).first;
    ++processes_opened_;
  }
  Process& process = it->second;
  if (buffered_ + line.size() + 1 > limits_.max_buffered) {
    return absl::ResourceExhaustedError(
        absl::StrCat("more than ", limits_.max_buffered, " bytes of EVENT lines held"));
  }
  process.text.append(line.data(), line.size());
  process.text.push_back('\n');
  ++process.lines;
  process.last_seen = now;
  buffered_ += line.size() + 1;
  // git writes nothing after atexit; a signal ends the process without one.
  if (parsed->type == format::EventType::kAtexit || parsed->type == format::EventType::kSignal) {
    End(parsed->sid);
  }
  return absl::OkStatus();
}

void Trace2EventStream::End(const std::string& sid) {
  auto it = processes_.find(sid);
  if (it == processes_.end()) return;
  Process process = std::move(it->second);
  processes_.erase(it);
  buffered_ -= process.text.size();
  Completed done;
  done.sid = sid;
  done.lines = process.lines;
  done.trace = ImportTrace2Event(process.text, ImportOptions{});
  if (done.trace.ok()) buffered_ += done.trace->size();
  completed_.push_back(std::move(done));
}

void Trace2EventStream::EndAll() {
  if (!partial_.empty()) {
    buffered_ -= partial_.size();
    partial_.clear();  // a line cut by the end of the stream
  }
  std::vector<std::string> sids;
  for (const auto& [sid, process] : processes_) sids.push_back(sid);
  for (const std::string& sid : sids) End(sid);
}

void Trace2EventStream::EndIdle(absl::Time now, absl::Duration idle) {
  std::vector<std::string> sids;
  for (const auto& [sid, process] : processes_) {
    if (now - process.last_seen >= idle) sids.push_back(sid);
  }
  for (const std::string& sid : sids) End(sid);
}

std::vector<Trace2EventStream::Completed> Trace2EventStream::TakeCompleted() {
  for (const Completed& done : completed_) {
    if (done.trace.ok()) buffered_ -= done.trace->size();
  }
  std::vector<Completed> out = std::move(completed_);
  completed_.clear();
  return out;
}

}  // namespace tracewire::tools
