#include "reader/targets/perfetto/track_event_encoder.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "reader/targets/perfetto/perfetto_trace.pb.h"

namespace tracewire::targets {
namespace pb = ::tracewire::perfetto;

void WireBuffer::Grow(size_t n) {
  const size_t capacity = std::max<size_t>({256, capacity_ * 2, size_ + n});
  std::unique_ptr<char[]> data(new char[capacity]);
  if (size_ > 0) std::memcpy(data.get(), data_.get(), size_);
  data_ = std::move(data);
  capacity_ = capacity;
}

void WireBuffer::BytesField(uint32_t field, const char* bytes, size_t size) {
  Varint((uint64_t{field} << 3) | 2);
  Varint(size);
  char* p = Reserve(size);
  if (size > 0) std::memcpy(p, bytes, size);
  size_ += size;
}

void WireBuffer::Fixed64Field(uint32_t field, uint64_t value) {
  Varint((uint64_t{field} << 3) | 1);
  char* p = Reserve(8);
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((value >> (8 * i)) & 0xff);
  size_ += 8;
}

void WireBuffer::Append(const WireBuffer& other) {
  char* p = Reserve(other.size_);
  if (other.size_ > 0) std::memcpy(p, other.data(), other.size_);
  size_ += other.size_;
}

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void TrackEventEncoder::Begin(uint32_t sequence_id, uint32_t sequence_flags, uint64_t timestamp,
                              uint32_t clock_id) {
  sequence_id_ = sequence_id;
  sequence_flags_ = sequence_flags;
  timestamp_ = timestamp;
  clock_id_ = clock_id;
  event_.clear();
  interned_.clear();
}

void TrackEventEncoder::Type(int type) {
  event_.VarintField(pb::TrackEvent::kTypeFieldNumber, static_cast<uint64_t>(type));
}

void TrackEventEncoder::TrackUuid(uint64_t uuid) {
  event_.VarintField(pb::TrackEvent::kTrackUuidFieldNumber, uuid);
}

void TrackEventEncoder::NameIid(uint64_t iid) {
  event_.VarintField(pb::TrackEvent::kNameIidFieldNumber, iid);
}

void TrackEventEncoder::CategoryIid(uint64_t iid) {
  event_.VarintField(pb::TrackEvent::kCategoryIidsFieldNumber, iid);
}

void TrackEventEncoder::CounterValue(int64_t value) {
  event_.VarintField(pb::TrackEvent::kCounterValueFieldNumber, static_cast<uint64_t>(value));
}

void TrackEventEncoder::FlowId(uint64_t id) {
  event_.Fixed64Field(pb::TrackEvent::kFlowIdsFieldNumber, id);
}

void TrackEventEncoder::TerminatingFlowId(uint64_t id) {
  event_.Fixed64Field(pb::TrackEvent::kTerminatingFlowIdsFieldNumber, id);
}

void TrackEventEncoder::StringArg(uint64_t name_iid, absl::string_view value) {
  scratch_.clear();
  scratch_.VarintField(pb::DebugAnnotation::kNameIidFieldNumber, name_iid);
  scratch_.BytesField(pb::DebugAnnotation::kStringValueFieldNumber, value);
  event_.BytesField(pb::TrackEvent::kDebugAnnotationsFieldNumber, scratch_);
}

void TrackEventEncoder::IntArg(uint64_t name_iid, int64_t value) {
  scratch_.clear();
  scratch_.VarintField(pb::DebugAnnotation::kNameIidFieldNumber, name_iid);
  scratch_.VarintField(pb::DebugAnnotation::kIntValueFieldNumber, static_cast<uint64_t>(value));
  event_.BytesField(pb::TrackEvent::kDebugAnnotationsFieldNumber, scratch_);
}

void TrackEventEncoder::UintArg(uint64_t name_iid, uint64_t value) {
  scratch_.clear();
  scratch_.VarintField(pb::DebugAnnotation::kNameIidFieldNumber, name_iid);
  scratch_.VarintField(pb::DebugAnnotation::kUintValueFieldNumber, value);
  event_.BytesField(pb::TrackEvent::kDebugAnnotationsFieldNumber, scratch_);
}

void TrackEventEncoder::BoolArg(uint64_t name_iid, bool value) {
  scratch_.clear();
  scratch_.VarintField(pb::DebugAnnotation::kNameIidFieldNumber, name_iid);
  scratch_.VarintField(pb::DebugAnnotation::kBoolValueFieldNumber, value ? 1 : 0);
  event_.BytesField(pb::TrackEvent::kDebugAnnotationsFieldNumber, scratch_);
}

void TrackEventEncoder::JsonArg(uint64_t name_iid, absl::string_view json) {
  scratch_.clear();
  scratch_.VarintField(pb::DebugAnnotation::kNameIidFieldNumber, name_iid);
  scratch_.BytesField(pb::DebugAnnotation::kLegacyJsonValueFieldNumber, json);
  event_.BytesField(pb::TrackEvent::kDebugAnnotationsFieldNumber, scratch_);
}

void TrackEventEncoder::BeginArray(uint64_t name_iid) {
  annotation_.clear();
  annotation_.VarintField(pb::DebugAnnotation::kNameIidFieldNumber, name_iid);
}

void TrackEventEncoder::ArrayItem(absl::string_view value) {
  scratch_.clear();
  scratch_.BytesField(pb::DebugAnnotation::kStringValueFieldNumber, value);
  annotation_.BytesField(pb::DebugAnnotation::kArrayValuesFieldNumber, scratch_);
}

void TrackEventEncoder::EndArray() {
  event_.BytesField(pb::TrackEvent::kDebugAnnotationsFieldNumber, annotation_);
}

void TrackEventEncoder::InternEntry(uint32_t table, uint64_t iid, absl::string_view name) {
  // EventName, EventCategory and DebugAnnotationName share their field numbers.
  scratch_.clear();
  scratch_.VarintField(pb::EventName::kIidFieldNumber, iid);
  scratch_.BytesField(pb::EventName::kNameFieldNumber, name);
  interned_.BytesField(table, scratch_);
}

void TrackEventEncoder::InternName(uint64_t iid, absl::string_view name) {
  InternEntry(pb::InternedData::kEventNamesFieldNumber, iid, name);
}

void TrackEventEncoder::InternCategory(uint64_t iid, absl::string_view name) {
  InternEntry(pb::InternedData::kEventCategoriesFieldNumber, iid, name);
}

void TrackEventEncoder::InternAnnotationName(uint64_t iid, absl::string_view name) {
  InternEntry(pb::InternedData::kDebugAnnotationNamesFieldNumber, iid, name);
}

namespace {

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

char* PutVarint(uint64_t value, char* p) {
  while (value >= 0x80) {
    *p++ = static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  *p++ = static_cast<char>(value);
  return p;
}

// A varint field whose tag is `tag` (field number and wire type, encoded).
char* PutVarintField(uint64_t tag, uint64_t value, char* p) {
  return PutVarint(value, PutVarint(tag, p));
}

char* PutBytesField(uint32_t field, const WireBuffer& body, char* p) {
  p = PutVarint(body.size(), PutVarint((uint64_t{field} << 3) | 2, p));
  if (body.size() > 0) std::memcpy(p, body.data(), body.size());
  return p + body.size();
}

constexpr uint64_t VarintTag(uint32_t field) { return uint64_t{field} << 3; }

}  // namespace

void TrackEventEncoder::End(std::string* out) {
  static_assert(pb::EventName::kIidFieldNumber == pb::EventCategory::kIidFieldNumber &&
                pb::EventName::kNameFieldNumber == pb::EventCategory::kNameFieldNumber &&
                pb::EventName::kIidFieldNumber == pb::DebugAnnotationName::kIidFieldNumber &&
                pb::EventName::kNameFieldNumber == pb::DebugAnnotationName::kNameFieldNumber);
  constexpr uint64_t kTimestamp = VarintTag(pb::TracePacket::kTimestampFieldNumber);
  constexpr uint64_t kClockId = VarintTag(pb::TracePacket::kTimestampClockIdFieldNumber);
  constexpr uint64_t kSequenceId = VarintTag(pb::TracePacket::kTrustedPacketSequenceIdFieldNumber);
  constexpr uint64_t kFlags = VarintTag(pb::TracePacket::kSequenceFlagsFieldNumber);
  size_t size = VarintSize(kTimestamp) + VarintSize(timestamp_) + VarintSize(kSequenceId) +
                VarintSize(sequence_id_) + VarintSize(kFlags) + VarintSize(sequence_flags_);
  if (clock_id_ != 0) size += VarintSize(kClockId) + VarintSize(clock_id_);
  size += VarintSize(VarintTag(pb::TracePacket::kTrackEventFieldNumber)) +
          VarintSize(event_.size()) + event_.size();
  if (!interned_.empty()) {
    size += VarintSize(VarintTag(pb::TracePacket::kInternedDataFieldNumber)) +
            VarintSize(interned_.size()) + interned_.size();
  }
  const uint64_t packet_tag = (uint64_t{pb::Trace::kPacketFieldNumber} << 3) | 2;
  const size_t at = out->size();
  const size_t total = VarintSize(packet_tag) + VarintSize(size) + size;
  out->resize(at + total);
  char* p = out->data() + at;
  p = PutVarint(size, PutVarint(packet_tag, p));
  p = PutVarintField(kTimestamp, timestamp_, p);
  if (clock_id_ != 0) p = PutVarintField(kClockId, clock_id_, p);
  p = PutVarintField(kSequenceId, sequence_id_, p);
  p = PutVarintField(kFlags, sequence_flags_, p);
  p = PutBytesField(pb::TracePacket::kTrackEventFieldNumber, event_, p);
  if (!interned_.empty())
    p = PutBytesField(pb::TracePacket::kInternedDataFieldNumber, interned_, p);
}

}  // namespace tracewire::targets
