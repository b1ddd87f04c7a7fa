// IsJsonText: a strict syntax check of one JSON value (RFC 8259), so that the exporters
// can embed a data_json value as JSON only when doing so keeps their output valid.
#ifndef TRACEWIRE_READER_TARGETS_JSON_CHECK_H_
#define TRACEWIRE_READER_TARGETS_JSON_CHECK_H_

#include "absl/strings/string_view.h"

namespace tracewire::targets {

// True if `text` is exactly one JSON value (surrounding whitespace allowed) in valid UTF-8,
// nested at most 256 levels deep.
bool IsJsonText(absl::string_view text);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_JSON_CHECK_H_
