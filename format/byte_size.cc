#include "format/byte_size.h"

#include <charconv>

#include "absl/strings/ascii.h"

namespace tracewire::format {
namespace {

// A whole unsigned decimal number, as absl::SimpleAtoi reads one (surrounding ASCII
// whitespace and one leading '+' allowed), without linking Abseil's number parsing (its
// floating-point code needs libm, which the runtime does not load).
bool ParseUnsigned(absl::string_view text, uint64_t* out) {
  text = absl::StripAsciiWhitespace(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+' || text.front() == '-') return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

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
  if (!ParseUnsigned(text, &number) || number > max_bytes / scale) return std::nullopt;
  return number * scale;
}

}  // namespace tracewire::format
