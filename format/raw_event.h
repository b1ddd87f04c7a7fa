// RawEvent: one record of the wire format as the spec-driven decoder sees it.
#ifndef TRACEWIRE_FORMAT_RAW_EVENT_H_
#define TRACEWIRE_FORMAT_RAW_EVENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/constants.h"
#include "format/event_spec.h"

namespace tracewire::format {

// One frame of a stack record. `func_string` and `file_string` are string IDs.
struct StackFrame {
  uint64_t pc = 0;
  uint64_t func_string = 0;
  uint64_t file_string = 0;
  uint64_t line = 0;

  friend bool operator==(const StackFrame&, const StackFrame&) = default;
};

// A decoded record. Views point into the decoder's input, which must outlive them.
struct RawEvent {
  uint8_t type = 0;
  const EventSpec* spec = nullptr;  // nullptr for an experimental type not in the table
  uint64_t offset = 0;              // absolute byte offset of the type byte
  uint64_t size = 0;                // encoded size, trailer and body included
  uint8_t num_args = 0;
  uint64_t args[kMaxArgs] = {};
  absl::string_view data;           // data trailer (spec->has_data)
  absl::string_view body;           // body of a batch frame (spec->body != kNone)
  uint64_t body_offset = 0;         // absolute offset of body[0]
  std::vector<StackFrame> frames;   // frames of a stack record (spec->is_stack)

  // The row name, or "experimental_<n>" for an unknown experimental type.
  std::string Name() const;
  // The value of the argument named `name`; the argument must exist.
  uint64_t Arg(absl::string_view name) const;
  // The arguments as a span.
  absl::Span<const uint64_t> Args() const { return absl::MakeConstSpan(args, num_args); }
};

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_RAW_EVENT_H_
