#include "format/raw_decoder.h"

#include "absl/base/optimization.h"
#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/varint.h"

namespace tracewire::format {

std::string RawEvent::Name() const {
  if (spec != nullptr) return std::string(spec->name);
  return absl::StrCat("experimental_", type);
}

uint64_t RawEvent::Arg(absl::string_view name) const {
  const int index = spec == nullptr ? -1 : spec->ArgIndex(name);
  return index < 0 ? 0 : args[index];
}

RecordDecoder::RecordDecoder(absl::string_view input, uint64_t base_offset, Scope scope,
                             uint32_t version)
    : begin_(reinterpret_cast<const uint8_t*>(input.data())),
      pos_(begin_),
      end_(begin_ + input.size()),
      base_offset_(base_offset),
      scope_(scope),
      version_(version) {}

absl::Status RecordDecoder::ReadArg(absl::string_view what, const RawEvent& event,
                                    uint64_t* value) {
  const uint64_t arg_offset = offset();
  const VarintResult result = GetUvarint(&pos_, end_, value);
  if (ABSL_PREDICT_TRUE(result == VarintResult::kOk)) return absl::OkStatus();
  const std::string message =
      absl::StrFormat("byte offset %d: %s in %s of %s record at offset %d", arg_offset,
                      VarintResultName(result), what, event.Name(), event.offset);
  return result == VarintResult::kTruncated ? absl::OutOfRangeError(message)
                                            : absl::DataLossError(message);
}

absl::StatusOr<bool> RecordDecoder::Next(RawEvent* event) {
  if (pos_ == end_) return false;
  const uint8_t* const start = pos_;
  const uint64_t record_offset = offset();
  const uint8_t type = *pos_;
  const EventSpec* spec = LookupSpec(type);
  event->type = type;
  event->spec = spec;
  event->offset = record_offset;
  event->data = {};
  event->body = {};
  event->body_offset = 0;
  event->frames.clear();

  // Which arguments to read: the row's, or the generic experimental layout (dt + data).
  static constexpr ArgSpec kGenericExperimentalArgs[] = {{"dt", ArgType::kDeltaTime}};
  absl::Span<const ArgSpec> args;
  size_t present_args = 1;  // on the wire: the row's arguments of the trace's version
  bool has_data = false;
  uint64_t max_data = kMaxRecordDataSize;
  if (spec != nullptr) {
    if (spec->scope != scope_) {
      return absl::DataLossError(
          absl::StrFormat("byte offset %d: event type %d (%s) may not appear in the %s",
                          record_offset, type, spec->name, ScopeName(scope_)));
    }
    args = spec->Args();
    present_args = spec->NumArgsIn(version_);
    has_data = spec->has_data;
    max_data = spec->max_data;
  } else if (IsExperimentalType(type) && scope_ == Scope::kEventBody) {
    args = kGenericExperimentalArgs;
    has_data = true;
  } else {
    return absl::DataLossError(absl::StrFormat("byte offset %d: unknown event type %d in the %s",
                                               record_offset, type, ScopeName(scope_)));
  }
  ++pos_;

  event->num_args = static_cast<uint8_t>(args.size());
  for (size_t i = present_args; i < args.size(); ++i) event->args[i] = 0;
  for (size_t i = 0; i < present_args; ++i) {
    if (absl::Status s = ReadArg(args[i].name, *event, &event->args[i]); !s.ok()) {
      pos_ = start;
      return s;
    }
  }

  if (spec != nullptr && spec->is_stack) {
    const uint64_t nframes = event->args[spec->ArgIndex("nframes")];
    if (nframes > kMaxFramesPerStack) {
      pos_ = start;
      return absl::DataLossError(
          absl::StrFormat("byte offset %d: stack record has %d frames, more than the maximum %d",
                          record_offset, nframes, kMaxFramesPerStack));
    }
    event->frames.resize(nframes);
    for (StackFrame& frame : event->frames) {
      for (uint64_t* field : {&frame.pc, &frame.func_string, &frame.file_string, &frame.line}) {
        if (absl::Status s = ReadArg("stack frame", *event, field); !s.ok()) {
          pos_ = start;
          return s;
        }
      }
    }
  }

  if (has_data) {
    uint64_t length = 0;
    if (absl::Status s = ReadArg("data length", *event, &length); !s.ok()) {
      pos_ = start;
      return s;
    }
    if (length > max_data) {
      pos_ = start;
      return absl::DataLossError(
          absl::StrFormat("byte offset %d: %s data length %d exceeds the maximum %d", record_offset,
                          event->Name(), length, max_data));
    }
    if (length > static_cast<uint64_t>(end_ - pos_)) {
      const uint64_t left = end_ - pos_;
      pos_ = start;
      return absl::OutOfRangeError(
          absl::StrFormat("byte offset %d: %s data length %d runs past the end of the input "
                          "(%d bytes left)",
                          record_offset, event->Name(), length, left));
    }
    event->data = absl::string_view(reinterpret_cast<const char*>(pos_), length);
    pos_ += length;
  }

  if (spec != nullptr && spec->body != BodyKind::kNone) {
    const uint64_t length = event->args[spec->ArgIndex("length")];
    const uint64_t header_size = pos_ - start;
    if (length > kMaxBatchSize || header_size + length > kMaxBatchSize) {
      pos_ = start;
      return absl::DataLossError(absl::StrFormat(
          "byte offset %d: %s of %d bytes (header %d + body %d) exceeds the maximum batch size "
          "%d",
          record_offset, event->Name(), absl::uint128(header_size) + length, header_size, length,
          kMaxBatchSize));
    }
    if (length > static_cast<uint64_t>(end_ - pos_)) {
      const uint64_t left = end_ - pos_;
      pos_ = start;
      return absl::OutOfRangeError(absl::StrFormat(
          "byte offset %d: %s body length %d runs past the end of the input (%d bytes left)",
          record_offset, event->Name(), length, left));
    }
    event->body_offset = offset();
    event->body = absl::string_view(reinterpret_cast<const char*>(pos_), length);
    pos_ += length;
  }

  event->size = pos_ - start;
  return true;
}

}  // namespace tracewire::format
