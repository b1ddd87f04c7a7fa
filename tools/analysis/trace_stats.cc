#include "tools/analysis/trace_stats.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "format/constants.h"
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

  if (!e.stack.empty()) {
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
