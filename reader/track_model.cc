#include "reader/track_model.h"

#include <string>

#include "reader/sid_parts.h"

namespace tracewire::reader {

uint32_t TrackModel::FindOrAddProcess(const Event& e, bool* created) {
  auto [it, inserted] =
      process_by_sid_.try_emplace(e.sid, static_cast<uint32_t>(processes_.size()));
  last_process_ = it->second;
  if (inserted) {
    ProcessTrack& process = processes_.emplace_back();
    process.sid = std::string(e.sid);
    process.index = it->second;
    process.depth = e.depth;
    process.first_time = process.last_time = e.time;
    *created = true;
  }
  return last_process_;
}

uint32_t TrackModel::FindOrAddThread(uint32_t process, const Event& e, bool* created) {
  const size_t before = threads_.size();
  const uint32_t thread = FindOrAddThread(process, e.thread_id, &e);
  *created = threads_.size() > before;
  return thread;
}

uint32_t TrackModel::FindOrAddThread(uint32_t process, uint64_t thread_id, const Event* e) {
  ProcessTrack& p = processes_[process];
  auto [it, inserted] = p.threads.try_emplace(thread_id, static_cast<uint32_t>(threads_.size()));
  if (!inserted) return it->second;
  const uint32_t index = it->second;
  if (thread_id < kDirectThreads) {
    if (p.direct_threads.size() <= thread_id) p.direct_threads.resize(thread_id + 1, kNoIndex);
    p.direct_threads[thread_id] = index;
  }
  ThreadTrack& thread = threads_.emplace_back();
  thread.process = process;
  thread.thread_id = thread_id;
  if (e != nullptr) {
    thread.name = std::string(e->thread_name);
    thread.tid = e->thread_tid;
    thread.lifetime = Slice{SliceKind::kThread, NewSlot(), process, index, kNoIndex, 0, 0,
                            thread_id,          kNoIndex,  e->time};
  }
  return index;
}

uint32_t TrackModel::FindOrAddThread(absl::string_view sid, uint64_t thread_id) {
  auto [it, inserted] = process_by_sid_.try_emplace(sid, static_cast<uint32_t>(processes_.size()));
  if (inserted) {
    ProcessTrack& process = processes_.emplace_back();
    process.sid = std::string(sid);
    process.index = it->second;
  }
  return FindOrAddThread(it->second, thread_id, nullptr);
}

std::optional<uint32_t> TrackModel::FindProcess(absl::string_view sid) const {
  auto it = process_by_sid_.find(sid);
  if (it == process_by_sid_.end()) return std::nullopt;
  return it->second;
}

uint32_t TrackModel::TouchLink(absl::string_view parent_sid, int64_t pid) {
  auto [it, inserted] = link_ids_.try_emplace(std::make_pair(std::string(parent_sid), pid),
                                              static_cast<uint32_t>(links_.size() + 1));
  if (inserted) links_.emplace_back();
  return it->second;
}

uint32_t TrackModel::FindOrAddGauge(uint32_t process, const Event& e) {
  std::string key = std::string(e.category);
  key.push_back('\0');
  key.append(e.label.data(), e.label.size());
  auto [it, inserted] =
      processes_[process].gauges.try_emplace(std::move(key), static_cast<uint32_t>(gauges_.size()));
  if (inserted) {
    GaugeTrack& gauge = gauges_.emplace_back();
    gauge.process = process;
    gauge.category = std::string(e.category);
    gauge.name = std::string(e.label);
    if (e.unit.has_value()) gauge.unit = std::string(*e.unit);
  }
  return it->second;
}

uint32_t TrackModel::FreeLane(ProcessTrack& process) {
  for (uint32_t lane = 0; lane < process.lanes.size(); ++lane) {
    if (process.lanes[lane].slot == kNoIndex) return lane;
  }
  process.lanes.emplace_back();
  return static_cast<uint32_t>(process.lanes.size() - 1);
}

uint32_t TrackModel::ParentLinkOf(uint32_t process, const Event& e) {
  const absl::string_view sid = processes_[process].sid;
  const size_t slash = sid.rfind('/');
  if (slash == absl::string_view::npos || slash == 0) return kNoIndex;
  const std::optional<uint32_t> own_pid = PidFromSidComponent(SidLastComponent(sid));
  if (!own_pid.has_value() || *own_pid == 0) return kNoIndex;
  const uint32_t link = TouchLink(sid.substr(0, slash), *own_pid);
  links_[link - 1].child_process = process;
  return link;
}

}  // namespace tracewire::reader
