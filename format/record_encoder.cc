#include "format/record_encoder.h"

#include "absl/strings/str_format.h"
#include "format/record_writer.h"

namespace tracewire::format {

absl::Status AppendRecord(std::string* out, EventType type, absl::Span<const uint64_t> args,
                          absl::string_view data, absl::Span<const StackFrame> frames) {
  const EventSpec* spec = LookupSpec(type);
  const uint8_t type_number = static_cast<uint8_t>(type);
  size_t expected_args = 1;
  size_t fewest_args = 1;  // arguments added by a later format version may be left out (0)
  bool has_data = true;
  uint64_t max_data = kMaxRecordDataSize;
  if (spec != nullptr) {
    expected_args = spec->num_args;
    fewest_args = spec->base_args;
    has_data = spec->has_data;
    max_data = spec->max_data;
  } else if (!IsExperimentalType(type_number) || type_number == 0) {
    return absl::InvalidArgumentError(absl::StrFormat("unknown event type %d", type_number));
  }
  const std::string name =
      spec != nullptr ? std::string(spec->name) : absl::StrFormat("experimental_%d", type_number);
  if (args.size() < fewest_args || args.size() > expected_args) {
    return absl::InvalidArgumentError(
        fewest_args == expected_args
            ? absl::StrFormat("%s takes %d arguments, got %d", name, expected_args, args.size())
            : absl::StrFormat("%s takes %d to %d arguments, got %d", name, fewest_args,
                              expected_args, args.size()));
  }
  if (!has_data && !data.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s carries no data", name));
  }
  if (data.size() > max_data) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s data of %d bytes exceeds the maximum %d", name, data.size(), max_data));
  }
  const bool is_stack = spec != nullptr && spec->is_stack;
  if (is_stack) {
    const uint64_t nframes = args[spec->ArgIndex("nframes")];
    if (nframes != frames.size() || nframes > kMaxFramesPerStack) {
      return absl::InvalidArgumentError(
          absl::StrFormat("stack record: nframes=%d but %d frames given (maximum %d)", nframes,
                          frames.size(), kMaxFramesPerStack));
    }
  } else if (!frames.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s carries no stack frames", name));
  }
  if (!TryAppendRecord(out, type, args, data, frames)) {
    return absl::InternalError(absl::StrFormat("%s: record rejected", name));
  }
  return absl::OkStatus();
}

}  // namespace tracewire::format
