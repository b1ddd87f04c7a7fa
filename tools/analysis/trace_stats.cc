#include "tools/analysis/trace_stats.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "format/constants.h"

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

TraceStats::ThreadRegions& TraceStats::RegionsOf(const Event& e) {
  if (last_stack_ == nullptr || e.thread_id != last_stack_thread_ || e.sid != last_stack_sid_) {
    last_stack_ = &stacks_[ThreadKey(std::string(e.sid), e.thread_id)];
    last_stack_sid_.assign(e.sid.data(), e.sid.size());
    last_stack_thread_ = e.thread_id;
  }
  return *last_stack_;
}

size_t TraceStats::RegionIndex(absl::string_view name) {
  auto [it, inserted] = region_index_.try_emplace(name, regions_.size());
  if (inserted) regions_.push_back(RegionTime{std::string(name)});
  return it->second;
}

void TraceStats::LeaveOpen(std::vector<OpenRegion>& stack, int64_t ns) {
  const OpenRegion open = stack.back();
  stack.pop_back();
  RegionTime& region = regions_[open.region];
  ++region.count;
  AddNs(region.total_ns, ns);
  AddNs(region.self_ns, ns);
  SubtractNs(region.self_ns, open.child_ns);
}

void TraceStats::Leave(ThreadRegions& thread, int64_t ns) {
  if (!thread.stack.empty()) {
    LeaveOpen(thread.stack, ns);
    if (!thread.stack.empty()) {
      AddNs(thread.stack.back().child_ns, ns);
    } else if (partial_) {
      thread.ops.push_back(StackOp{StackOp::kChildTime, ns});
    }
  } else if (partial_) {
    thread.ops.push_back(StackOp{StackOp::kLeave, ns});
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

  // Region times, from a region stack per thread (as the reader derives nesting).
  switch (e.kind) {
    case EventKind::kRegionEnter:
      region_name_.assign(e.category.data(), e.category.size());
      region_name_ += '/';
      region_name_.append(e.label.data(), e.label.size());
      RegionsOf(e).stack.push_back(OpenRegion{RegionIndex(region_name_)});
      break;
    case EventKind::kRegionLeave:
      Leave(RegionsOf(e), Nanoseconds(e.t_rel));
      break;
    case EventKind::kAtexit:
    case EventKind::kThreadExit:
    case EventKind::kThTimer:
    case EventKind::kTimer:
    case EventKind::kThCounter:
    case EventKind::kCounter: {
      // These unwind the thread's regions (git's tr2tls_pop_unwind_self).
      ThreadRegions& thread = RegionsOf(e);
      thread.stack.clear();
      if (partial_) thread.ops.push_back(StackOp{StackOp::kUnwind});
      break;
    }
    default:
      break;
  }
}

void TraceStats::Merge(const TraceStats& run) {
  events_ += run.events_;
  header_flags_ |= run.header_flags_;
  if (run.first_time_.has_value() && (!first_time_.has_value() || *run.first_time_ < *first_time_)) {
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
  // The threads' stacks are independent, so their order does not matter.
  for (const auto& [key, regions] : run.stacks_) {
    ThreadRegions& thread = stacks_[key];
    for (const StackOp& op : regions.ops) {
      switch (op.kind) {
        case StackOp::kLeave:
          Leave(thread, op.ns);
          break;
        case StackOp::kChildTime:
          if (!thread.stack.empty()) AddNs(thread.stack.back().child_ns, op.ns);
          break;
        case StackOp::kUnwind:
          thread.stack.clear();
          break;
      }
    }
    for (const OpenRegion& open : regions.stack) {
      thread.stack.push_back(OpenRegion{region_map[open.region], open.child_ns});
    }
  }
}

size_t TraceStats::bytes() const {
  size_t total = sizeof(*this) + 64 * (threads_.size() + regions_.size() + stacks_.size());
  for (const auto& [key, regions] : stacks_) {
    total += sizeof(OpenRegion) * regions.stack.size() + sizeof(StackOp) * regions.ops.size();
  }
  return total;
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

std::vector<std::pair<std::vector<std::string>, uint64_t>> TraceStats::TopStacks(
    size_t top) const {
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
