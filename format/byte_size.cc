#include "format/byte_size.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace tracewire::format {

std::optional<uint64_t> ParseByteSize(absl::string_view text, uint64_t max_bytes) {
  text = absl::StripAsciiWhitespace(text);
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (absl::ascii_toupper(text.back())) {
      case 'K':
        scale = uint64_t{1} << 10;
        break;
      case 'M':
        scale = uint64_t{1} << 20;
        break;
      case 'G':
        scale = uint64_t{1} << 30;
        break;
      default:
        break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  uint64_t number = 0;
  if (!absl::SimpleAtoi(text, &number) || number > max_bytes / scale) return std::nullopt;
  return number * scale;
}

}  // namespace tracewire::format
