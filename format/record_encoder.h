// Spec-driven encoding of single records.
#ifndef TRACEWIRE_FORMAT_RECORD_ENCODER_H_
#define TRACEWIRE_FORMAT_RECORD_ENCODER_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "format/event_spec.h"
#include "format/raw_event.h"
#include "format/record_writer.h"  // RecordSize, TryAppendRecord

namespace tracewire::format {

// Appends one record of `type` to `out`: the type byte, `args` (all of them, dt included,
// as the row lists them; arguments a later format version added to the row, ArgSpec::since,
// may be left out and are written as 0), then the stack frames and the data trailer the row calls
// for. Frames whose rows carry a body must be followed by that body (see the batch encoders). Fails
// with InvalidArgument, leaving `out` unchanged, if the arguments, frames or data do not match the
// row or exceed a limit. Unknown experimental types use the generic layout (dt, data).
absl::Status AppendRecord(std::string* out, EventType type, absl::Span<const uint64_t> args,
                          absl::string_view data = {}, absl::Span<const StackFrame> frames = {});

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_RECORD_ENCODER_H_
