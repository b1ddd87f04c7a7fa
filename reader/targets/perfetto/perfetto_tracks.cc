#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "reader/targets/perfetto/perfetto_formatter.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::perfetto_export {

void PerfettoFormatter::DescribeProcess(Process& p, Thread& on) {
  p.described = true;
  if (!StartDescriptor(on, std::max<int64_t>(now_ns_, 0))) return;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(p.uuid);
  // No process_name: the trace processor keeps the first name it sees, and the name is
  // the command line's (WriteProcessTree), known once the start event has come.
  d->mutable_process()->set_pid(p.pid);
  EmitPacket();
}

void PerfettoFormatter::WriteProcessTree(const Process& p, Thread& on) {
  if (!StartDescriptor(on, std::max<int64_t>(now_ns_, 0))) return;
  pb::ProcessTree::Process* process = packet_.mutable_process_tree()->add_processes();
  process->set_pid(p.pid);
  if (p.ppid != 0) process->set_ppid(p.ppid);
  for (const std::string& arg : p.argv) process->add_cmdline(arg);
  EmitPacket();
}

void PerfettoFormatter::DescribeThread(Thread& t, const Process& p, int64_t ns) {
  if (!StartDescriptor(t, ns)) return;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(t.track.uuid);
  d->set_parent_uuid(p.uuid);
  pb::ThreadDescriptor* thread = d->mutable_thread();
  thread->set_pid(p.pid);
  thread->set_tid(t.tid);
  thread->set_thread_name(t.name);
  EmitPacket();
}

Track& PerfettoFormatter::LaneTrack(Process& p, uint32_t lane, Thread& on, int64_t ns) {
  if (lane < p.lanes.size()) return p.lanes[lane];
  const size_t index = p.lanes.size();  // lanes are taken lowest free first
  Track& track = p.lanes.emplace_back();
  track.uuid = next_uuid_++;
  if (!StartDescriptor(on, ns)) return track;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(track.uuid);
  d->set_parent_uuid(p.uuid);
  d->set_name(index == 0 ? std::string("children") : absl::StrCat("children ", index + 1));
  EmitPacket();
  return track;
}

uint64_t PerfettoFormatter::CounterTrack(Process& p, Thread& on, const std::string& name,
                                         pb::CounterDescriptor::Unit unit, int64_t ns) {
  const std::string key = absl::StrCat(p.uuid, "|", name);
  auto it = counter_tracks_.find(key);
  if (it != counter_tracks_.end()) return it->second;
  const uint64_t uuid = next_uuid_++;
  counter_tracks_.emplace(key, uuid);
  if (!StartDescriptor(on, ns)) return uuid;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(uuid);
  d->set_parent_uuid(p.uuid);
  d->set_name(std::string(ValidUtf8(name, &scratch_)));
  d->mutable_counter()->set_unit(unit);
  EmitPacket();
  return uuid;
}

uint32_t PerfettoFormatter::TakeTaskLane(Process& p, const std::string& name, Thread& on,
                                         int64_t ns) {
  TaskLanes& lanes = p.task_lanes[name];
  if (!lanes.free.empty()) {
    const uint32_t index = lanes.free.top();
    lanes.free.pop();
    return index;
  }
  const uint32_t index = static_cast<uint32_t>(lanes.tracks.size());
  Track& lane = lanes.tracks.emplace_back();
  lane.uuid = next_uuid_++;
  if (StartDescriptor(on, ns)) {
    pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
    d->set_uuid(lane.uuid);
    d->set_parent_uuid(p.uuid);
    d->set_name(name);
    EmitPacket();
  }
  return index;
}

uint64_t PerfettoFormatter::SegmentTrack(Thread& t, const Process& p, int64_t ns) {
  if (t.segment_track != 0) return t.segment_track;
  t.segment_track = next_uuid_++;
  if (!StartDescriptor(t, ns)) return t.segment_track;
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(t.segment_track);
  d->set_parent_uuid(t.track.uuid);  // shown with the thread
  d->set_name(absl::StrCat(t.name, " tasks"));
  EmitPacket();
  return t.segment_track;
}

uint64_t PerfettoFormatter::GaugeTrack(Process& p, Thread& on, uint32_t gauge, int64_t ns) {
  if (gauge_tracks_.size() <= gauge) gauge_tracks_.resize(gauge + 1, 0);
  if (gauge_tracks_[gauge] != 0) return gauge_tracks_[gauge];
  const reader::GaugeTrack& g = model_.gauges()[gauge];
  const uint64_t uuid = next_uuid_++;
  gauge_tracks_[gauge] = uuid;
  if (!StartDescriptor(on, ns)) return uuid;
  // The name as the Chrome export's series: "category/name (unit)"; CounterDescriptor's
  // unit enum where the unit is one it has.
  std::string name = absl::StrCat(g.category, "/", g.name);
  if (!g.unit.empty()) absl::StrAppend(&name, " (", g.unit, ")");
  pb::CounterDescriptor::Unit unit = pb::CounterDescriptor::UNIT_UNSPECIFIED;
  if (g.unit == "ns") {
    unit = pb::CounterDescriptor::UNIT_TIME_NS;
  } else if (g.unit == "bytes" || g.unit == "B") {
    unit = pb::CounterDescriptor::UNIT_SIZE_BYTES;
  } else if (g.unit.empty() || g.unit == "count") {
    unit = pb::CounterDescriptor::UNIT_COUNT;
  }
  pb::TrackDescriptor* d = packet_.mutable_track_descriptor();
  d->set_uuid(uuid);
  d->set_parent_uuid(p.uuid);
  d->set_name(std::string(ValidUtf8(name, &scratch_)));
  pb::CounterDescriptor* counter = d->mutable_counter();
  counter->set_unit(unit);
  if (!g.category.empty()) counter->add_categories(std::string(ValidUtf8(g.category, &scratch_)));
  EmitPacket();
  return uuid;
}

void PerfettoFormatter::GaugeSample(const Event& e, Process& p, Thread& t, int64_t ns,
                                    uint32_t gauge) {
  const int64_t ts = Tick(t.track, ns);
  const uint64_t uuid = GaugeTrack(p, t, gauge, ts);
  StartEvent(t, ts, pb::TrackEvent::TYPE_COUNTER, uuid);
  CounterValue(e.value_int);
  EndEvent();
}

}  // namespace tracewire::targets::perfetto_export
