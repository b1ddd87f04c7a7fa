// ValidUtf8: makes trace strings safe for the JSON exporters. Trace2 strings are bytes
// (git's json-writer copies them raw), but Chrome's and OTLP's JSON must be UTF-8: every
// byte that does not start a well-formed UTF-8 sequence becomes U+FFFD.
#ifndef TRACEWIRE_READER_TARGETS_VALID_UTF8_H_
#define TRACEWIRE_READER_TARGETS_VALID_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::targets {

// Length of the well-formed UTF-8 sequence (RFC 3629) at text[i], or 0 if there is none.
size_t Utf8SequenceLength(absl::string_view text, size_t i);

// True if `text` is well-formed UTF-8 (no overlongs, surrogates or values above U+10FFFF).
bool IsValidUtf8(absl::string_view text);

// `text` itself if it is valid UTF-8, else a copy in *scratch with each invalid byte
// replaced by U+FFFD (EF BF BD). The result is valid until *scratch changes.
absl::string_view ValidUtf8(absl::string_view text, std::string* scratch);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_VALID_UTF8_H_
