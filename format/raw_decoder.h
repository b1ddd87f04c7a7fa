// RecordDecoder: the raw, spec-driven decoder. It knows only the EventSpec table: it reads
// the type byte, the row's varint arguments, stack frames, data trailer and batch body, and
// checks every length against the input and the format's limits. Meaning (string IDs,
// ordering, pairing) is checked by the reader.
#ifndef TRACEWIRE_FORMAT_RAW_DECODER_H_
#define TRACEWIRE_FORMAT_RAW_DECODER_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/event_spec.h"
#include "format/raw_event.h"

namespace tracewire::format {

// Decodes the records of one scope (the frames of a trace, or the body of one batch).
//
// Errors name the absolute byte offset of the offending record. Input that ends inside a
// record gives absl::OutOfRangeError (the input may be truncated); anything else that is
// malformed gives absl::DataLossError. After an error the decoder stays at the bad record.
class RecordDecoder {
 public:
  // `input` holds records of `scope`; `base_offset` is the absolute offset of input[0].
  // `version` is the trace's format version: a record lacks the arguments its row gained in
  // later versions (ArgSpec::since), which decode as 0.
  RecordDecoder(absl::string_view input, uint64_t base_offset, Scope scope,
                uint32_t version = kFormatVersion);

  // Decodes the next record into *event. Returns true if one was decoded and false at the
  // end of the input.
  absl::StatusOr<bool> Next(RawEvent* event);

  // Absolute offset of the next record.
  uint64_t offset() const { return base_offset_ + (pos_ - begin_); }

  // True when every byte was consumed.
  bool AtEnd() const { return pos_ == end_; }

 private:
  // Reads one varint of `event`; `what` names it in the error message.
  absl::Status ReadArg(absl::string_view what, const RawEvent& event, uint64_t* value);

  const uint8_t* begin_;
  const uint8_t* pos_;
  const uint8_t* end_;
  uint64_t base_offset_;
  Scope scope_;
  uint32_t version_;
};

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_RAW_DECODER_H_
