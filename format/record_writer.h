// Spec-driven encoding of single records without absl::Status: what the runtime links
// (absl::Status would bring absl::Cord and libstdc++'s streams into every traced program).
#ifndef TRACEWIRE_FORMAT_RECORD_WRITER_H_
#define TRACEWIRE_FORMAT_RECORD_WRITER_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/event_spec.h"
#include "format/raw_event.h"

namespace tracewire::format {

// Appends one record of `type` to `out` exactly as AppendRecord (record_encoder.h) does.
// Returns false, leaving `out` unchanged, where AppendRecord fails.
bool TryAppendRecord(std::string* out, EventType type, absl::Span<const uint64_t> args,
                     absl::string_view data = {}, absl::Span<const StackFrame> frames = {});

// Exact number of bytes AppendRecord would append (no validation).
size_t RecordSize(EventType type, absl::Span<const uint64_t> args, absl::string_view data = {},
                  absl::Span<const StackFrame> frames = {});

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_RECORD_WRITER_H_
