#include "tools/analysis/trace_stats.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "format/constants.h"
#include "reader/targets/folded_target.h"
#include "tools/analysis/export_size.h"

namespace tracewire::tools {

using reader::Event;
using reader::EventKind;

namespace {

// A duration in integer nanoseconds (0 if beyond 290 years: invalid input).
int64_t Nanoseconds(const std::optional<double>& seconds) {
  const double ns = seconds.value_or(0) * 1e9;
  return std::fabs(ns) < 9.2e18 ? std::llround(ns) : 0;
}

// acc += ns, wrapping around on overflow: exact and independent of the order of the sums.
void AddNs(int64_t& acc, int64_t ns) {
  acc = static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(ns));
}
void SubtractNs(int64_t& acc, int64_t ns) {
  acc = static_cast<int64_t>(static_cast<uint64_t>(acc) - static_cast<uint64_t>(ns));
}

}  // namespace

size_t TraceStats::RegionIndex(absl::string_view name) {
  auto [it, inserted] = region_index_.try_emplace(name, regions_.size());
  if (inserted) regions_.push_back(RegionTime{std::string(name)});
  return it->second;
}

class TraceStats::RegionListener : public reader::TrackListener {
 public:
  explicit RegionListener(TraceStats* stats) : stats_(stats) {}

  void OnSliceBegin(const reader::Slice& slice, const Event& e) {
    if (slice.kind != reader::SliceKind::kRegion) return;
    std::string& name = stats_->region_name_;
    name.assign(e.category.data(), e.category.size());
    name += '/';
    name.append(e.label.data(), e.label.size());
    stats_->Open(slice.slot) = OpenRegion{stats_->RegionIndex(name)};
  }
  void OnSliceEnd(const reader::Slice& slice, const reader::SliceEnding& end) {
    // Regions git unwound are not counted (they have no region_leave).
    if (slice.kind != reader::SliceKind::kRegion || end.cause != reader::SliceEnd::kEndEvent) {
      return;
    }
    stats_->RegionLeft(slice, Nanoseconds(end.event->t_rel));
  }
  void OnSample(const Event& e, const reader::SampleContext& at) {
    SampleFunctions sample;
    sample.weight = e.count;
    for (size_t i = 0; i < e.stack.size(); ++i) {
      const size_t index = stats_->FunctionIndex(targets::FoldedFrameName(e.stack[i]));
      if (i == 0) sample.self = index;
      if (std::find(sample.in_stack.begin(), sample.in_stack.end(), index) ==
          sample.in_stack.end()) {
        sample.in_stack.push_back(index);
      }
    }
    stats_->AddSample(sample, at.regions);
    // In a partial run, regions open before the run (the reader's nesting counts them) get
    // the sample when the run is merged.
    if (stats_->partial_ && static_cast<size_t>(e.nesting - 1) > at.regions.size()) {
      stats_->pending_samples_.push_back(std::move(sample));
      stats_->AddOp(at.thread, StackOp{StackOp::kSample,
                                       static_cast<int64_t>(stats_->pending_samples_.size() - 1)});
    }
  }
  void OnEvent(const Event& e, const reader::EventTracks& at) {
    if (!stats_->partial_) return;
    if (e.kind == EventKind::kRegionLeave) {
      // A leave of a region entered before the run (otherwise a leave of a region entered
      // before a salvaged suffix: it has no enter here).
      if (!at.slice_ended) stats_->AddOp(at.thread, StackOp{StackOp::kLeave, Nanoseconds(e.t_rel)});
    } else if (reader::KindUnwindsRegions(e.kind)) {
      // These unwind the thread's regions (git's tr2tls_pop_unwind_self), those open
      // before the run too.
      stats_->AddOp(at.thread, StackOp{StackOp::kUnwind});
    }
  }

 private:
  TraceStats* stats_;
};

void TraceStats::AddOp(uint32_t thread, StackOp op) {
  if (ops_.size() <= thread) ops_.resize(thread + 1);
  ops_[thread].push_back(op);
}

void TraceStats::RegionLeft(const reader::Slice& slice, int64_t ns) {
  const OpenRegion& open = open_[slice.slot];
  RegionTime& region = regions_[open.region];
  ++region.count;
  AddNs(region.total_ns, ns);
  AddNs(region.self_ns, ns);
  SubtractNs(region.self_ns, open.child_ns);
  if (slice.parent != reader::kNoIndex) {
    AddNs(open_[slice.parent].child_ns, ns);
  } else if (partial_) {
    AddOp(slice.thread, StackOp{StackOp::kChildTime, ns});
  }
}

void TraceStats::Leave(uint32_t thread, int64_t ns) {
  const absl::Span<const reader::Slice> open = tracks_.OpenRegions(thread);
  if (!open.empty()) {
    RegionLeft(open.back(), ns);
    reader::TrackListener ignore;
    tracks_.EndInnermostRegion(thread, absl::Time(), ignore);
  } else if (partial_) {
    AddOp(thread, StackOp{StackOp::kLeave, ns});
  }
  // Otherwise a leave of a region entered before a salvaged suffix: it has no enter here.
}

void TraceStats::AddEvent(const Event& e) {
  ++events_;
  ++by_kind_[static_cast<size_t>(e.kind)];
  if (!first_time_.has_value() || e.time < *first_time_) first_time_ = e.time;
  if (!last_time_.has_value() || e.time > *last_time_) last_time_ = e.time;

  // Events by thread; consecutive events of one thread skip the map lookup.
  if (last_thread_ >= threads_.size() || threads_[last_thread_].first.first != e.sid ||
      threads_[last_thread_].first.second != e.thread_name) {
    std::pair<std::string, std::string> key(std::string(e.sid), std::string(e.thread_name));
    auto [it, inserted] = thread_index_.try_emplace(key, threads_.size());
    if (inserted) threads_.emplace_back(std::move(key), 0);
    last_thread_ = it->second;
  }
  ++threads_[last_thread_].second;

  if (e.kind == EventKind::kCpuSamplesLost) samples_lost_ += e.count;
  if (e.kind == EventKind::kCounter && e.category == format::kRuntimeCategory &&
      e.label == format::kUncompressedGenerationsLabel) {
    uncompressed_generations_ += e.count;
  }
  if (!e.stack.empty() && e.kind != EventKind::kCpuSample) {
    std::vector<std::string> frames;
    std::string key;
    for (const reader::SymbolFrame& frame : e.stack) {
      frames.push_back(reader::FrameText(frame));
      absl::StrAppend(&key, frames.back(), "\n");
    }
    auto [it, inserted] = stack_counts_.try_emplace(key);
    if (inserted) it->second.first = std::move(frames);
    ++it->second.second;
  }

  if (reader::IsExtensionKind(e.kind)) task_stats_.Add(e);

  // Region times, from the track model's regions (which follow the reader's nesting).
  RegionListener listener(this);
  tracks_.Add(e, listener);
}

void TraceStats::Merge(const TraceStats& run) {
  events_ += run.events_;
  header_flags_ |= run.header_flags_;
  task_stats_.Merge(run.task_stats_);
  if (run.first_time_.has_value() &&
      (!first_time_.has_value() || *run.first_time_ < *first_time_)) {
    first_time_ = run.first_time_;
  }
  if (run.last_time_.has_value() && (!last_time_.has_value() || *run.last_time_ > *last_time_)) {
    last_time_ = run.last_time_;
  }
  for (size_t i = 0; i < by_kind_.size(); ++i) by_kind_[i] += run.by_kind_[i];
  for (const auto& [key, count] : run.threads_) {
    auto [it, inserted] = thread_index_.try_emplace(key, threads_.size());
    if (inserted) threads_.emplace_back(key, 0);
    threads_[it->second].second += count;
  }
  std::vector<size_t> region_map;
  region_map.reserve(run.regions_.size());
  for (const RegionTime& r : run.regions_) {
    const size_t index = RegionIndex(r.name);
    region_map.push_back(index);
    RegionTime& region = regions_[index];
    region.count += r.count;
    AddNs(region.total_ns, r.total_ns);
    AddNs(region.self_ns, r.self_ns);
  }
  for (const auto& [key, stack] : run.stack_counts_) {
    auto [it, inserted] = stack_counts_.try_emplace(key, stack.first, 0);
    it->second.second += stack.second;
  }
  // The CPU profile: the run's function indices mapped to ours.
  samples_lost_ += run.samples_lost_;
  uncompressed_generations_ += run.uncompressed_generations_;
  std::vector<size_t> function_map;
  function_map.reserve(run.functions_.size());
  for (const std::string& function : run.functions_)
    function_map.push_back(FunctionIndex(function));
  auto merge_weights = [&](Weights& into, const Weights& from) {
    into.samples += from.samples;
    for (size_t i = 0; i < from.self.size(); ++i) {
      const size_t f = function_map[i];
      if (into.self.size() <= f) {
        into.self.resize(f + 1);
        into.total.resize(f + 1);
      }
      into.self[f] += from.self[i];
      into.total[f] += from.total[i];
    }
  };
  merge_weights(all_weights_, run.all_weights_);
  for (size_t r = 0; r < run.region_weights_.size(); ++r) {
    const size_t index = region_map[r];
    if (region_weights_.size() <= index) region_weights_.resize(index + 1);
    merge_weights(region_weights_[index], run.region_weights_[r]);
  }
  // The threads' regions are independent, so their order does not matter.
  reader::TrackListener ignore;
  for (uint32_t run_thread = 0; run_thread < run.tracks_.threads().size(); ++run_thread) {
    const absl::Span<const reader::Slice> run_open = run.tracks_.OpenRegions(run_thread);
    const std::vector<StackOp>* ops =
        run_thread < run.ops_.size() ? &run.ops_[run_thread] : nullptr;
    if (run_open.empty() && (ops == nullptr || ops->empty())) continue;
    const reader::ThreadTrack& track = run.tracks_.thread(run_thread);
    const uint32_t thread =
        tracks_.FindOrAddThread(run.tracks_.process(track.process).sid, track.thread_id);
    for (const StackOp& op : ops != nullptr ? *ops : std::vector<StackOp>()) {
      switch (op.kind) {
        case StackOp::kLeave:
          Leave(thread, op.ns);
          break;
        case StackOp::kChildTime:
          if (const absl::Span<const reader::Slice> open = tracks_.OpenRegions(thread);
              !open.empty()) {
            AddNs(open_[open.back().slot].child_ns, op.ns);
          }
          break;
        case StackOp::kUnwind:
          tracks_.EndThreadRegions(thread, absl::Time(), ignore);
          break;
        case StackOp::kSample: {
          // Only the regions open before the run are open here: the run counted its own.
          SampleFunctions sample = run.pending_samples_[op.ns];
          sample.self = function_map[sample.self];
          for (size_t& f : sample.in_stack) f = function_map[f];
          for (const reader::Slice& region : tracks_.OpenRegions(thread)) {
            const size_t index = open_[region.slot].region;
            if (region_weights_.size() <= index) region_weights_.resize(index + 1);
            Count(region_weights_[index], sample);
          }
          break;
        }
      }
    }
    for (const reader::Slice& run_region : run_open) {
      const OpenRegion& data = run.open_[run_region.slot];
      const reader::Slice& region =
          tracks_.BeginRegion(thread, run_region.nesting, run_region.begin);
      Open(region.slot) = OpenRegion{region_map[data.region], data.child_ns};
    }
  }
}

size_t TraceStats::FunctionIndex(const std::string& name) {
  auto [it, inserted] = function_index_.try_emplace(name, functions_.size());
  if (inserted) functions_.push_back(name);
  return it->second;
}

void TraceStats::Count(Weights& weights, const SampleFunctions& sample) {
  weights.samples += sample.weight;
  size_t needed = sample.self + 1;
  for (size_t f : sample.in_stack) needed = std::max(needed, f + 1);
  if (weights.self.size() < needed) {
    weights.self.resize(needed);
    weights.total.resize(needed);
  }
  weights.self[sample.self] += sample.weight;
  for (size_t f : sample.in_stack) weights.total[f] += sample.weight;
}

void TraceStats::AddSample(const SampleFunctions& sample, absl::Span<const reader::Slice> regions) {
  Count(all_weights_, sample);
  for (const reader::Slice& region : regions) {
    const size_t index = open_[region.slot].region;
    if (region_weights_.size() <= index) region_weights_.resize(index + 1);
    Count(region_weights_[index], sample);
  }
}

uint64_t TraceStats::SampleWeight(std::optional<std::string> region) const {
  if (!region.has_value()) return all_weights_.samples;
  auto it = region_index_.find(*region);
  if (it == region_index_.end() || it->second >= region_weights_.size()) return 0;
  return region_weights_[it->second].samples;
}

std::vector<FunctionWeight> TraceStats::TopFunctions(size_t top, bool by_self,
                                                     std::optional<std::string> region) const {
  const Weights* weights = &all_weights_;
  if (region.has_value()) {
    auto it = region_index_.find(*region);
    if (it == region_index_.end() || it->second >= region_weights_.size()) return {};
    weights = &region_weights_[it->second];
  }
  std::vector<FunctionWeight> sorted;
  for (size_t f = 0; f < weights->self.size(); ++f) {
    if (weights->total[f] == 0) continue;
    sorted.push_back(FunctionWeight{functions_[f], weights->self[f], weights->total[f]});
  }
  std::sort(sorted.begin(), sorted.end(),
            [by_self](const FunctionWeight& a, const FunctionWeight& b) {
              const uint64_t x = by_self ? a.self : a.total;
              const uint64_t y = by_self ? b.self : b.total;
              return x != y ? x > y : a.name < b.name;
            });
  if (sorted.size() > top) sorted.resize(top);
  return sorted;
}

size_t TraceStats::bytes() const {
  size_t total =
      sizeof(*this) + 64 * (threads_.size() + regions_.size() + tracks_.threads().size());
  total += sizeof(OpenRegion) * open_.size();
  for (const std::vector<StackOp>& ops : ops_) total += sizeof(StackOp) * ops.size();
  return total + task_stats_.bytes();
}

void TraceStats::AddGeneration(const reader::RawGeneration& generation) {
  ++generations_;
  if (generation.compressed) {
    ++compressed_generations_;
    compressed_file_bytes_ += generation.file_bytes;
    compressed_raw_bytes_ += generation.raw_bytes;
  }
}

std::vector<std::pair<std::string, uint64_t>> TraceStats::EventsByKind() const {
  std::vector<std::pair<std::string, uint64_t>> counts;
  for (size_t i = 0; i < by_kind_.size(); ++i) {
    if (by_kind_[i] == 0) continue;
    counts.emplace_back(std::string(reader::EventKindName(static_cast<EventKind>(i))), by_kind_[i]);
  }
  return counts;
}

std::vector<RegionTime> TraceStats::TopRegions(size_t top, bool by_self) const {
  std::vector<RegionTime> sorted;
  for (const RegionTime& region : regions_) {
    if (region.count > 0) sorted.push_back(region);
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [by_self](const RegionTime& a, const RegionTime& b) {
                     return by_self ? a.self_ns > b.self_ns : a.total_ns > b.total_ns;
                   });
  if (sorted.size() > top) sorted.resize(top);
  return sorted;
}

std::vector<std::pair<std::vector<std::string>, uint64_t>> TraceStats::TopStacks(size_t top) const {
  std::vector<std::pair<std::vector<std::string>, uint64_t>> sorted;
  for (const auto& [key, stack] : stack_counts_) sorted.push_back(stack);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (sorted.size() > top) sorted.resize(top);
  return sorted;
}

void TraceStats::RenderProfile(size_t top, std::string* out) const {
  const uint64_t all = all_weights_.samples;
  absl::StrAppendFormat(out, "\nCPU samples: weight %d", all);
  if (samples_lost_ != 0)
    absl::StrAppendFormat(out, ", %d lost (a thread's buffer was full)", samples_lost_);
  *out += "\n";
  if (all == 0) {
    *out += "  (no samples: record some with TRACEWIRE_CPU_PROFILE)\n";
    return;
  }
  auto percent = [](uint64_t part, uint64_t whole) { return 100.0 * part / whole; };
  for (const bool by_self : {true, false}) {
    absl::StrAppendFormat(out, "\ntop functions by %s samples:\n", by_self ? "self" : "total");
    absl::StrAppendFormat(out, "  %7s %7s  %s\n", "self%", "total%", "function");
    for (const FunctionWeight& f : TopFunctions(top, by_self)) {
      absl::StrAppendFormat(out, "  %6.1f%% %6.1f%%  %s\n", percent(f.self, all),
                            percent(f.total, all), f.name);
    }
  }
  // Inside the top regions by total time: where their samples' time went.
  for (const RegionTime& region : TopRegions(top, /*by_self=*/false)) {
    const uint64_t weight = SampleWeight(region.name);
    if (weight == 0) continue;
    const std::vector<FunctionWeight> functions = TopFunctions(5, /*by_self=*/true, region.name);
    absl::StrAppendFormat(out, "\ninside %s (%d samples' weight): ", region.name, weight);
    for (size_t i = 0; i < functions.size() && functions[i].self > 0; ++i) {
      absl::StrAppendFormat(out, "%s%.0f %% in %s", i == 0 ? "" : ", ",
                            percent(functions[i].self, weight), functions[i].name);
    }
    *out += "\n";
  }
}

std::string TraceStats::Render(const std::string& name, size_t top) const {
  std::string out;
  absl::StrAppendFormat(&out, "trace: %s (%d bytes in %d file(s))\n", name, bytes_, files_);
  absl::StrAppendFormat(&out, "processes: %d\n", processes_);
  absl::StrAppendFormat(&out, "generations: %d (%d compressed)\n", generations_,
                        compressed_generations_);
  if ((header_flags_ & format::kFileFlagFlightRecorderDump) != 0) {
    if (first_time_.has_value()) {
      constexpr const char* kUtc = "%Y-%m-%dT%H:%M:%E6SZ";
      absl::StrAppendFormat(&out, "flight-recorder dump: covers %.6f s, from %s to %s\n",
                            absl::ToDoubleSeconds(*last_time_ - *first_time_),
                            absl::FormatTime(kUtc, *first_time_, absl::UTCTimeZone()),
                            absl::FormatTime(kUtc, *last_time_, absl::UTCTimeZone()));
    } else {
      out += "flight-recorder dump: no events\n";
    }
  }
  absl::StrAppendFormat(&out, "events: %d", events_);
  if (events_ > 0) {
    absl::StrAppendFormat(&out, " (%.1f bytes per event)",
                          static_cast<double>(bytes_) / static_cast<double>(events_));
  }
  out += "\n";
  {
    const uint64_t region_events = by_kind_[static_cast<size_t>(reader::EventKind::kRegionEnter)] +
                                   by_kind_[static_cast<size_t>(reader::EventKind::kRegionLeave)];
    const absl::Duration covered = first_time_.has_value() && last_time_.has_value()
                                       ? *last_time_ - *first_time_
                                       : absl::ZeroDuration();
    out += ExportSizeAdvice(region_events, events_ - region_events, covered);
  }
  if (compressed_generations_ == 0 || compressed_file_bytes_ == 0) {
    out += "compression: none (no compressed generation)\n";
  } else {
    absl::StrAppendFormat(
        &out,
        "compression: ratio %.2f (%d bytes of compressed generations hold %d "
        "bytes)\n",
        static_cast<double>(compressed_raw_bytes_) / static_cast<double>(compressed_file_bytes_),
        compressed_file_bytes_, compressed_raw_bytes_);
  }
  if (uncompressed_generations_ != 0) {
    absl::StrAppendFormat(&out,
                          "compression skipped: %d generation(s) written uncompressed although "
                          "TRACEWIRE_COMPRESS asked for compression (compression fell "
                          "behind the recording)\n",
                          uncompressed_generations_);
  }
  out += "\nevents by kind:\n";
  for (const auto& [kind, count] : EventsByKind()) {
    absl::StrAppendFormat(&out, "  %-16s %10d\n", kind, count);
  }
  out += "\nevents by thread:\n";
  for (const auto& [key, count] : threads_) {
    absl::StrAppendFormat(&out, "  %-24s %10d  %s\n", key.second, count, key.first);
  }
  for (const bool by_self : {false, true}) {
    const std::vector<RegionTime> regions = TopRegions(top, by_self);
    absl::StrAppendFormat(&out, "\ntop regions by %s time:\n", by_self ? "self" : "total");
    if (regions.empty()) {
      out += "  (no regions)\n";
      continue;
    }
    absl::StrAppendFormat(&out, "  %12s %12s %8s  %s\n", "total_s", "self_s", "count",
                          "category/label");
    for (const RegionTime& region : regions) {
      absl::StrAppendFormat(&out, "  %12.6f %12.6f %8d  %s\n", region.total_ns / 1e9,
                            region.self_ns / 1e9, region.count, region.name);
    }
  }
  out += task_stats_.Render(top);
  RenderProfile(top, &out);
  out += "\ntop stacks (events recorded with each; innermost frame first):\n";
  const auto stacks = TopStacks(top);
  if (stacks.empty()) out += "  (no stacks: record some with TRACEWIRE_STACKS)\n";
  for (const auto& [frames, count] : stacks) {
    for (size_t i = 0; i < frames.size(); ++i) {
      if (i == 0) {
        absl::StrAppendFormat(&out, "  %8d  #%-2d %s\n", count, i, frames[i]);
      } else {
        absl::StrAppendFormat(&out, "  %8s  #%-2d %s\n", "", i, frames[i]);
      }
    }
  }
  return out;
}

}  // namespace tracewire::tools
