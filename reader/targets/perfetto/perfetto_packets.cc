#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/base/optimization.h"
#include "absl/strings/string_view.h"
#include "reader/targets/perfetto/perfetto_formatter.h"
#include "reader/targets/perfetto/perfetto_target.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::perfetto_export {

void PerfettoFormatter::StartSequence(Thread& thread, int64_t ns) {
  Sequence& seq = thread.sequence;
  seq.started = true;
  seq.clock_ns = ns;
  if (!writing()) return;
  packet_.Clear();
  packet_.set_trusted_packet_sequence_id(seq.id);
  packet_.set_sequence_flags(kStateCleared);
  packet_.set_first_packet_on_sequence(true);
  packet_.set_timestamp(static_cast<uint64_t>(ns));
  packet_.set_timestamp_clock_id(kPerfettoClockRealtime);
  pb::TracePacketDefaults* defaults = packet_.mutable_trace_packet_defaults();
  defaults->set_timestamp_clock_id(kPerfettoSequenceClock);
  defaults->mutable_track_event_defaults()->set_track_uuid(thread.track.uuid);
  pb::ClockSnapshot* snapshot = packet_.mutable_clock_snapshot();
  snapshot->set_primary_trace_clock(kPerfettoClockRealtime);
  pb::ClockSnapshot::Clock* realtime = snapshot->add_clocks();
  realtime->set_clock_id(kPerfettoClockRealtime);
  realtime->set_timestamp(static_cast<uint64_t>(ns));
  pb::ClockSnapshot::Clock* incremental = snapshot->add_clocks();
  incremental->set_clock_id(kPerfettoSequenceClock);
  incremental->set_timestamp(static_cast<uint64_t>(ns));
  incremental->set_is_incremental(true);
  incremental->set_unit_multiplier_ns(1);
  EmitPacket();
}

void PerfettoFormatter::StartEvent(Thread& thread, int64_t ns, pb::TrackEvent::Type type,
                                   uint64_t track_uuid) {
  Sequence& seq = thread.sequence;
  if (!seq.started) StartSequence(thread, ns);
  sequence_ = &seq;
  const int64_t delta = ns - seq.clock_ns;
  seq.clock_ns = ns;
  if (!writing()) return;
  encoder_.Begin(seq.id, kNeedsState, static_cast<uint64_t>(delta), 0);
  encoder_.Type(type);
  if (track_uuid != 0) encoder_.TrackUuid(track_uuid);
}

void PerfettoFormatter::StartAbsoluteEvent(Thread& thread, int64_t ns, pb::TrackEvent::Type type,
                                           uint64_t track_uuid) {
  Sequence& seq = thread.sequence;
  if (!seq.started) StartSequence(thread, ns);
  sequence_ = &seq;
  if (!writing()) return;
  encoder_.Begin(seq.id, kNeedsState, static_cast<uint64_t>(ns), kPerfettoClockRealtime);
  encoder_.Type(type);
  encoder_.TrackUuid(track_uuid);
}

bool PerfettoFormatter::StartDescriptor(Thread& thread, int64_t ns) {
  Sequence& seq = thread.sequence;
  if (!seq.started) StartSequence(thread, ns);
  if (!writing()) return false;
  packet_.Clear();
  packet_.set_trusted_packet_sequence_id(seq.id);
  packet_.set_sequence_flags(kNeedsState);
  packet_.set_timestamp(static_cast<uint64_t>(ns));
  packet_.set_timestamp_clock_id(kPerfettoClockRealtime);
  return true;
}

void PerfettoFormatter::EmitPacket() {
  const size_t size = packet_.ByteSizeLong();
  std::string& out = *out_;
  out.push_back(kTracePacketTag);
  AppendVarint(size, &out);
  const size_t at = out.size();
  out.resize(at + size);
  packet_.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t*>(out.data() + at));
}

template <typename AddEntry>
uint64_t PerfettoFormatter::Intern(InternTable& table, absl::string_view text, AddEntry add) {
  InternTable::Recent& recent =
      table.recent[(reinterpret_cast<uintptr_t>(text.data()) >> 3) % InternTable::kRecent];
  if (ABSL_PREDICT_TRUE(recent.iid != 0 && recent.text == text)) return recent.iid;
  uint64_t iid;
  auto it = table.ids.find(text);
  if (ABSL_PREDICT_TRUE(it != table.ids.end())) {
    iid = it->second;
  } else {
    iid = table.ids.size() + 1;
    table.ids.emplace(std::string(text), iid);
    if (writing()) add(iid, ValidUtf8(text, &scratch_));
  }
  recent.text.assign(text.data(), text.size());
  recent.iid = iid;
  return iid;
}

void PerfettoFormatter::SetNameAndCategory(absl::string_view name, absl::string_view category) {
  const uint64_t name_iid =
      Intern(sequence_->names, name,
             [this](uint64_t iid, absl::string_view text) { encoder_.InternName(iid, text); });
  if (writing()) encoder_.NameIid(name_iid);
  if (category.empty()) return;
  const uint64_t category_iid =
      Intern(sequence_->categories, category,
             [this](uint64_t iid, absl::string_view text) { encoder_.InternCategory(iid, text); });
  if (writing()) encoder_.CategoryIid(category_iid);
}

}  // namespace tracewire::targets::perfetto_export
