// TrackEventEncoder: writes one TracePacket holding a TrackEvent (and the interned data it
// introduces) straight into the output as protobuf wire bytes, without building messages:
// the Perfetto formatter's hot path (the generated code of perfetto_trace.proto costs three
// times as much per event; see docs/performance.md). Field numbers come from the generated
// code's constants, so the schema stays the one source of them; tests parse the bytes back
// with the generated code and compare them with the same packet built as messages.
//
//   encoder.Begin(sequence_id, flags, timestamp, clock_id /* 0: the sequence's default */);
//   encoder.Type(TrackEvent::TYPE_SLICE_BEGIN); encoder.NameIid(3); encoder.CategoryIid(1);
//   encoder.InternName(3, "label");            // when the iid is new on the sequence
//   encoder.StringArg(name_iid, "value");
//   encoder.End(&out);                          // appends the Trace.packet field
//
// Between Begin and End the calls may come in any order; repeated fields keep their order.
// The encoder owns three small buffers, reused from packet to packet: no allocation per
// packet once they have grown.
#ifndef TRACEWIRE_READER_TARGETS_PERFETTO_TRACK_EVENT_ENCODER_H_
#define TRACEWIRE_READER_TARGETS_PERFETTO_TRACK_EVENT_ENCODER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::targets {

// A growable byte buffer written through a raw cursor (no per-byte capacity checks), with
// the protobuf wire encoding of single fields.
class WireBuffer {
 public:
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }

  void Varint(uint64_t value) {
    char* p = Reserve(10);
    while (value >= 0x80) {
      *p++ = static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    *p++ = static_cast<char>(value);
    size_ = static_cast<size_t>(p - data_.get());
  }
  // A varint field (wire type 0).
  void VarintField(uint32_t field, uint64_t value) {
    Varint(uint64_t{field} << 3);
    Varint(value);
  }
  // A length-delimited field (wire type 2): bytes, a string or a nested message.
  void BytesField(uint32_t field, const char* bytes, size_t size);
  void BytesField(uint32_t field, absl::string_view bytes) {
    BytesField(field, bytes.data(), bytes.size());
  }
  void BytesField(uint32_t field, const WireBuffer& nested) {
    BytesField(field, nested.data(), nested.size());
  }
  // A fixed64 field (wire type 1), little-endian.
  void Fixed64Field(uint32_t field, uint64_t value);
  // The bytes of `other`, as they are.
  void Append(const WireBuffer& other);

 private:
  // Room for `n` more bytes; returns the cursor.
  char* Reserve(size_t n) {
    if (capacity_ - size_ < n) Grow(n);
    return data_.get() + size_;
  }
  void Grow(size_t n);

  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

// Appends a varint to *out.
void AppendVarint(uint64_t value, std::string* out);

class TrackEventEncoder {
 public:
  // Starts a packet on sequence `sequence_id` with `sequence_flags` and `timestamp`, in
  // clock `clock_id` (0: the sequence's default clock, no timestamp_clock_id written).
  void Begin(uint32_t sequence_id, uint32_t sequence_flags, uint64_t timestamp, uint32_t clock_id);

  // TrackEvent fields.
  void Type(int type);
  void TrackUuid(uint64_t uuid);
  void NameIid(uint64_t iid);
  void CategoryIid(uint64_t iid);
  void CounterValue(int64_t value);
  void FlowId(uint64_t id);
  void TerminatingFlowId(uint64_t id);

  // Debug annotations (name by iid).
  void StringArg(uint64_t name_iid, absl::string_view value);
  void IntArg(uint64_t name_iid, int64_t value);
  void UintArg(uint64_t name_iid, uint64_t value);
  void BoolArg(uint64_t name_iid, bool value);
  void JsonArg(uint64_t name_iid, absl::string_view json);
  // An array of strings: call ArrayItem for each item, then EndArray.
  void BeginArray(uint64_t name_iid);
  void ArrayItem(absl::string_view value);
  void EndArray();

  // InternedData entries of the packet.
  void InternName(uint64_t iid, absl::string_view name);
  void InternCategory(uint64_t iid, absl::string_view name);
  void InternAnnotationName(uint64_t iid, absl::string_view name);

  // Appends the packet (a Trace.packet field) to *out.
  void End(std::string* out);

 private:
  void InternEntry(uint32_t table, uint64_t iid, absl::string_view name);

  // TracePacket fields other than track_event and interned_data.
  uint32_t sequence_id_ = 0;
  uint32_t sequence_flags_ = 0;
  uint64_t timestamp_ = 0;
  uint32_t clock_id_ = 0;
  WireBuffer event_;       // TrackEvent body
  WireBuffer interned_;    // InternedData body
  WireBuffer annotation_;  // the DebugAnnotation being built (arrays)
  WireBuffer scratch_;
  WireBuffer packet_;  // Trace.packet: tag, length, the packet
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_PERFETTO_TRACK_EVENT_ENCODER_H_
