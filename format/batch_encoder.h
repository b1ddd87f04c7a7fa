// Encoders for batches: event batches (timed events of one thread) and table batches
// (strings, stacks, sites). Every batch they produce, header included, fits in
// kMaxBatchSize; the stream encoders close a batch and open the next when one would not.
#ifndef TRACEWIRE_FORMAT_BATCH_ENCODER_H_
#define TRACEWIRE_FORMAT_BATCH_ENCODER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/event_spec.h"
#include "format/raw_event.h"

namespace tracewire::format {

// Builds one event batch: header {gen, thread, base_time, length} and a body of timed
// events whose dt arguments are deltas from the previous event (the first from base_time).
class EventBatchEncoder {
 public:
  EventBatchEncoder(uint64_t gen, uint64_t thread, uint64_t base_time);

  // Appends a timed event at absolute time `time`; `args` are the row's arguments without
  // dt. Times strictly increase within a batch: a time not after the previous event's (or
  // the base time) is encoded as previous + 1, as the runtime does. Returns false, leaving
  // the batch unchanged, when the event would make the batch pass kMaxBatchSize. Fails with
  // InvalidArgument for a type that is not timed or arguments that do not match its row.
  absl::StatusOr<bool> Append(EventType type, uint64_t time, absl::Span<const uint64_t> args,
                              absl::string_view data = {});

  // True if no event was appended.
  bool empty() const { return body_.empty(); }
  // Encoded size of header and body.
  size_t size() const;
  // Time of the last event (the base time if empty).
  uint64_t last_time() const { return last_time_; }
  // Appends the encoded batch (header and body) to *out.
  void AppendTo(std::string* out) const;

 private:
  size_t HeaderSize(size_t body_size) const;

  uint64_t gen_;
  uint64_t thread_;
  uint64_t base_time_;
  uint64_t last_time_;
  std::string body_;
};

// A thread's event stream in one generation, cut into batches as they fill.
class EventStreamEncoder {
 public:
  // Finished batches are appended to *out, which must outlive the encoder.
  EventStreamEncoder(uint64_t gen, uint64_t thread, std::string* out);

  // Appends an event as EventBatchEncoder::Append does; when it does not fit, closes the
  // current batch into *out and opens a new one whose base time is the last event's time.
  absl::Status Append(EventType type, uint64_t time, absl::Span<const uint64_t> args,
                      absl::string_view data = {});

  // Closes the current batch, if it holds any event, into *out.
  void Flush();

  // Number of batches written to *out so far.
  int batches_written() const { return batches_written_; }

 private:
  uint64_t gen_;
  uint64_t thread_;
  std::string* out_;
  std::optional<EventBatchEncoder> batch_;
  int batches_written_ = 0;
};

// Records of one table kind (string_batch, stack_batch or site_batch), cut into batches.
class TableStreamEncoder {
 public:
  // `batch_type` is kStringBatch, kStackBatch or kSiteBatch. Finished batches are appended
  // to *out, which must outlive the encoder.
  TableStreamEncoder(EventType batch_type, uint64_t gen, std::string* out);

  // Appends one record that belongs in this table kind (see AppendRecord).
  absl::Status Append(EventType type, absl::Span<const uint64_t> args,
                      absl::string_view data = {}, absl::Span<const StackFrame> frames = {});

  // Appends a string of any size up to kMaxStringSize: string_part records of
  // kMaxRecordDataSize bytes, then one string record with the rest. Requires a
  // kStringBatch encoder.
  absl::Status AppendString(uint64_t id, absl::string_view value);

  // Closes the current batch, if it holds any record, into *out.
  void Flush();

 private:
  EventType batch_type_;
  uint64_t gen_;
  std::string* out_;
  std::string body_;
};

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_BATCH_ENCODER_H_
