#include "tools/analysis/diff_collect.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "reader/targets/folded_target.h"

namespace tracewire::tools {
namespace {

using reader::EventKind;
using reader::SliceKind;

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

template <typename T>
T& At(std::vector<T>& v, size_t i) {
  if (v.size() <= i) v.resize(i + 1);
  return v[i];
}

}  // namespace

void RunCollector::Add(const reader::Event& e) {
  ++run_.events;
  model_.Add(e, *this);
}

const std::string& RunCollector::CommandOf(uint32_t process) {
  const std::string& name = At(cmd_names_, process);
  return name.empty() ? At(argv0_, process) : name;
}

void RunCollector::OnSliceBegin(const reader::Slice& slice, const reader::Event& e) {
  std::string name;
  switch (slice.kind) {
    case SliceKind::kRegion:
    case SliceKind::kTask:
      name = absl::StrCat(e.category, "/", e.label);
      break;
    case SliceKind::kChild:
      name = absl::StrCat(e.child_class, "/", e.argv.empty() ? "" : Basename(e.argv[0]));
      break;
    default:
      return;
  }
  At(slot_names_, slice.slot) = std::move(name);
}

void RunCollector::OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end) {
  // Only ends the trace shows: a slice ended because its process or the input ended has
  // no duration.
  if (end.cause != reader::SliceEnd::kEndEvent && end.cause != reader::SliceEnd::kUnwound) return;
  const double ns = absl::ToDoubleNanoseconds(end.time - slice.begin);
  switch (slice.kind) {
    case SliceKind::kRegion: {
      const std::string& command = CommandOf(slice.process);
      Values(DiffKind::kRegion, command.empty()
                                    ? slot_names_[slice.slot]
                                    : absl::StrCat(command, ": ", slot_names_[slice.slot]))
          .push_back(ns);
      break;
    }
    case SliceKind::kTask:
      Values(DiffKind::kTask, slot_names_[slice.slot]).push_back(ns);
      break;
    case SliceKind::kChild:
      Values(DiffKind::kChild, slot_names_[slice.slot]).push_back(ns);
      break;
    default:
      break;
  }
}

void RunCollector::OnEvent(const reader::Event& e, const reader::EventTracks& at) {
  switch (e.kind) {
    case EventKind::kStart:
      if (!e.argv.empty()) At(argv0_, at.process) = std::string(Basename(e.argv[0]));
      break;
    case EventKind::kCmdName:
      At(cmd_names_, at.process) = std::string(e.cmd_name);
      break;
    case EventKind::kError: {
      const absl::string_view text = e.fmt ? *e.fmt : e.msg.value_or("");
      Values(DiffKind::kError, std::string(text)).push_back(1);
      Values(DiffKind::kError, "*").push_back(1);
      break;
    }
    case EventKind::kTimer:
      Values(DiffKind::kTimer, absl::StrCat(e.category, "/", e.label)).push_back(e.t_total * 1e9);
      break;
    case EventKind::kCounter:
      Values(DiffKind::kCounter, absl::StrCat(e.category, "/", e.label))
          .push_back(static_cast<double>(e.count));
      break;
    case EventKind::kGauge:
      Values(DiffKind::kGaugeMean, absl::StrCat(e.category, "/", e.label))
          .push_back(static_cast<double>(e.value_int));
      break;
    default:
      break;
  }
}

void RunCollector::OnSample(const reader::Event& e, const reader::SampleContext& at) {
  sample_weight_ += e.count;
  if (e.stack.empty()) return;
  scratch_.clear();
  for (const reader::SymbolFrame& frame : e.stack) {
    scratch_.push_back(targets::FoldedFrameName(frame));
  }
  self_weight_[scratch_[0]] += e.count;
  std::sort(scratch_.begin(), scratch_.end());
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
  for (const std::string& name : scratch_) total_weight_[name] += e.count;
}

RunValues RunCollector::Finish() {
  model_.Finish(*this);
  // Commands: each process's wall time, first event to last.
  for (const reader::ProcessTrack& process : model_.processes()) {
    const std::string& command = CommandOf(process.index);
    const std::string name = command.empty() ? "?" : command;
    run_.commands.insert(name);
    Values(DiffKind::kCommand, name)
        .push_back(absl::ToDoubleNanoseconds(process.last_time - process.first_time));
  }
  // Timers and counters: one total per run (a process tree's processes add up).
  for (DiffKind kind : {DiffKind::kTimer, DiffKind::kCounter, DiffKind::kError}) {
    for (auto it = run_.values.lower_bound(DiffKey{kind, ""});
         it != run_.values.end() && it->first.first == kind; ++it) {
      double sum = 0;
      for (double v : it->second) sum += v;
      it->second.assign(1, sum);
    }
  }
  // Gauges: the last sample of each, besides every sample.
  std::vector<std::pair<std::string, double>> last;
  for (auto it = run_.values.lower_bound(DiffKey{DiffKind::kGaugeMean, ""});
       it != run_.values.end() && it->first.first == DiffKind::kGaugeMean; ++it) {
    last.emplace_back(it->first.second, it->second.back());
  }
  for (auto& [name, value] : last) Values(DiffKind::kGaugeLast, name).push_back(value);
  // A gauge's samples are a time series, not independent draws: the run's mean is its one
  // value (compared across runs, as the last sample is).
  for (auto it = run_.values.lower_bound(DiffKey{DiffKind::kGaugeMean, ""});
       it != run_.values.end() && it->first.first == DiffKind::kGaugeMean; ++it) {
    double sum = 0;
    for (double v : it->second) sum += v;
    it->second.assign(1, sum / static_cast<double>(it->second.size()));
  }
  // Functions: shares of the run's CPU-sample weight, in percent.
  if (sample_weight_ > 0) {
    const double scale = 100.0 / static_cast<double>(sample_weight_);
    for (const auto& [name, weight] : self_weight_) {
      Values(DiffKind::kFunctionSelf, name).push_back(scale * static_cast<double>(weight));
    }
    for (const auto& [name, weight] : total_weight_) {
      Values(DiffKind::kFunctionTotal, name).push_back(scale * static_cast<double>(weight));
    }
  }
  return std::move(run_);
}

}  // namespace tracewire::tools
