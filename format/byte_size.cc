#include "format/byte_size.h"

#include <charconv>

#include "absl/strings/string_view.h"

namespace tracewire::format {
namespace {

// `text` without ASCII whitespace around it, as absl::StripAsciiWhitespace (which, being
// inline, links Abseil's exception delegates through absl::string_view::substr).
absl::string_view StripWhitespace(absl::string_view text) {
  auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

// A whole unsigned decimal number, as absl::SimpleAtoi reads one (surrounding ASCII
// whitespace and one leading '+' allowed), without linking Abseil's number parsing (its
// floating-point code needs libm, which the runtime does not load).
bool ParseUnsigned(absl::string_view text, uint64_t* out) {
  text = StripWhitespace(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+' || text.front() == '-') return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<uint64_t> ParseByteSize(absl::string_view text, uint64_t max_bytes) {
  text = StripWhitespace(text);
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        scale = uint64_t{1} << 10;
        break;
      case 'M':
      case 'm':
        scale = uint64_t{1} << 20;
        break;
      case 'G':
      case 'g':
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
