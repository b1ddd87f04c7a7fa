#include "format/record_writer.h"

#include "format/varint.h"

namespace tracewire::format {

bool TryAppendRecord(std::string* out, EventType type, absl::Span<const uint64_t> args,
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
    return false;
  }
  if (args.size() < fewest_args || args.size() > expected_args) return false;
  if (!has_data && !data.empty()) return false;
  if (data.size() > max_data) return false;
  if (spec != nullptr && spec->is_stack) {
    const uint64_t nframes = args[spec->ArgIndex("nframes")];
    if (nframes != frames.size() || nframes > kMaxFramesPerStack) return false;
  } else if (!frames.empty()) {
    return false;
  }
  out->push_back(static_cast<char>(type_number));
  for (uint64_t arg : args) AppendUvarint(out, arg);
  out->append(expected_args - args.size(), '\0');  // left-out arguments: 0
  for (const StackFrame& frame : frames) {
    AppendUvarint(out, frame.pc);
    AppendUvarint(out, frame.func_string);
    AppendUvarint(out, frame.file_string);
    AppendUvarint(out, frame.line);
  }
  if (has_data) {
    AppendUvarint(out, data.size());
    out->append(data.data(), data.size());
  }
  return true;
}

size_t RecordSize(EventType type, absl::Span<const uint64_t> args, absl::string_view data,
                  absl::Span<const StackFrame> frames) {
  const EventSpec* spec = LookupSpec(type);
  size_t size = 1;
  for (uint64_t arg : args) size += UvarintSize(arg);
  if (spec != nullptr && args.size() < spec->num_args) size += spec->num_args - args.size();
  for (const StackFrame& frame : frames) {
    size += UvarintSize(frame.pc) + UvarintSize(frame.func_string) +
            UvarintSize(frame.file_string) + UvarintSize(frame.line);
  }
  if (spec == nullptr || spec->has_data) size += UvarintSize(data.size()) + data.size();
  return size;
}

}  // namespace tracewire::format
