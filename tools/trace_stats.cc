#include "tools/trace_stats.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::tools {

using reader::Event;
using reader::EventKind;

void TraceStats::AddEvent(const Event& e) {
  ++events_;
  ++by_kind_[static_cast<size_t>(e.kind)];

  // Events by thread; consecutive events of one thread skip the map lookup.
  if (last_thread_ >= threads_.size() || threads_[last_thread_].first.first != e.sid ||
      threads_[last_thread_].first.second != e.thread_name) {
    std::pair<std::string, std::string> key(std::string(e.sid), std::string(e.thread_name));
    auto [it, inserted] = thread_index_.try_emplace(key, threads_.size());
    if (inserted) threads_.emplace_back(std::move(key), 0);
    last_thread_ = it->second;
  }
  ++threads_[last_thread_].second;

  // Region times, from a region stack per thread (as the reader derives nesting).
  switch (e.kind) {
    case EventKind::kRegionEnter: {
      const std::string name = absl::StrCat(e.category, "/", e.label);
      auto [it, inserted] = region_index_.try_emplace(name, regions_.size());
      if (inserted) regions_.push_back(RegionTime{name});
      stacks_[{std::string(e.sid), e.thread_id}].push_back(OpenRegion{it->second});
      break;
    }
    case EventKind::kRegionLeave: {
      std::vector<OpenRegion>& stack = stacks_[{std::string(e.sid), e.thread_id}];
      // A leave of a region entered before a salvaged suffix has no enter here.
      if (stack.empty()) break;
      const OpenRegion open = stack.back();
      stack.pop_back();
      const double duration = e.t_rel.value_or(0);
      RegionTime& region = regions_[open.region];
      ++region.count;
      region.total_sec += duration;
      region.self_sec += duration - open.child_sec;
      if (!stack.empty()) stack.back().child_sec += duration;
      break;
    }
    case EventKind::kAtexit:
    case EventKind::kThreadExit:
    case EventKind::kThTimer:
    case EventKind::kTimer:
    case EventKind::kThCounter:
    case EventKind::kCounter:
      // These unwind the thread's regions (git's tr2tls_pop_unwind_self).
      stacks_.erase({std::string(e.sid), e.thread_id});
      break;
    default:
      break;
  }
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
                     return by_self ? a.self_sec > b.self_sec : a.total_sec > b.total_sec;
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
      absl::StrAppendFormat(&out, "  %12.6f %12.6f %8d  %s\n", region.total_sec, region.self_sec,
                            region.count, region.name);
    }
  }
  return out;
}

}  // namespace tracewire::tools
