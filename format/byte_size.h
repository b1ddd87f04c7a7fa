// Sizes written the way tracewire's settings and flags take them: a decimal number of
// bytes with an optional K, M or G suffix (any case; powers of 1024).
#ifndef TRACEWIRE_FORMAT_BYTE_SIZE_H_
#define TRACEWIRE_FORMAT_BYTE_SIZE_H_

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"

namespace tracewire::format {

// The number of bytes `text` states ("4M" is 4194304), or nullopt if it is not a number
// with an optional suffix or states more than `max_bytes`. Spaces around it are ignored.
std::optional<uint64_t> ParseByteSize(absl::string_view text, uint64_t max_bytes);

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_BYTE_SIZE_H_
