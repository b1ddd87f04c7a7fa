// Text building and scanning for the runtime: concatenation, hex and decimal numbers,
// searching, splitting and ASCII case. The runtime does not use Abseil's StrCat,
// StrFormat, SimpleAtoi, StrSplit or ascii/match helpers, absl::Status, nor the
// out-of-line members of absl::string_view (find, rfind, find_first_of, the throwing
// substr): they would link Abseil's number and floating-point formatting (and with it
// libm), absl::Cord, Abseil's exception delegates, and libstdc++'s locale and stream
// classes (string_view.cc also defines operator<< for string_view) into every program that
// links the runtime, and every process would pay for relocating and constructing them at
// start-up. The helpers below work on absl::string_view through std::string_view, whose
// members are inline templates.
#ifndef TRACEWIRE_RUNTIME_TEXT_H_
#define TRACEWIRE_RUNTIME_TEXT_H_

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/strings/string_view.h"

namespace tracewire::runtime {

// The parts, one after the other.
std::string Cat(std::initializer_list<absl::string_view> parts);

// `value` in decimal.
std::string Dec(long long value);

// Appends `byte` as two lowercase hex digits.
void AppendHexByte(std::string* out, unsigned char byte);

// Appends `value` as at least `width` lowercase hex digits (zero-padded).
void AppendHex(std::string* out, uint64_t value, int width);

// Appends `value` in decimal, zero-padded to at least `width` digits.
void AppendDec(std::string* out, uint64_t value, int width);

// `text` as a std::string_view (same bytes).
inline std::string_view Std(absl::string_view text) { return {text.data(), text.size()}; }

// The position of the first `c` (or `needle`, or any of `chars`) at or after `pos`, or
// absl::string_view::npos.
inline size_t Find(absl::string_view text, char c, size_t pos = 0) {
  return Std(text).find(c, pos);
}
inline size_t Find(absl::string_view text, absl::string_view needle, size_t pos = 0) {
  return Std(text).find(Std(needle), pos);
}
inline size_t FindFirstOf(absl::string_view text, absl::string_view chars, size_t pos = 0) {
  return Std(text).find_first_of(Std(chars), pos);
}

// The position of the last `c`, or absl::string_view::npos.
inline size_t RFind(absl::string_view text, char c) { return Std(text).rfind(c); }

// The part of `text` from `pos` (clamped to the end), at most `n` bytes. Never throws.
inline absl::string_view Substr(absl::string_view text, size_t pos,
                                size_t n = absl::string_view::npos) {
  if (pos > text.size()) pos = text.size();
  if (n > text.size() - pos) n = text.size() - pos;
  return absl::string_view(text.data() + pos, n);
}

// ASCII classes and case, as absl::ascii_* (false/unchanged outside ASCII).
constexpr bool IsAsciiSpace(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
constexpr bool IsAsciiUpper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool IsAsciiLower(unsigned char c) { return c >= 'a' && c <= 'z'; }
constexpr bool IsAsciiAlpha(unsigned char c) { return IsAsciiUpper(c) || IsAsciiLower(c); }
constexpr bool IsAsciiDigit(unsigned char c) { return c >= '0' && c <= '9'; }
constexpr bool IsAsciiAlnum(unsigned char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }
constexpr char AsciiToLower(unsigned char c) {
  return static_cast<char>(IsAsciiUpper(c) ? c + ('a' - 'A') : c);
}
constexpr char AsciiToUpper(unsigned char c) {
  return static_cast<char>(IsAsciiLower(c) ? c - ('a' - 'A') : c);
}

// `text` with ASCII letters lowered (raised).
std::string AsciiStrToLower(absl::string_view text);
std::string AsciiStrToUpper(absl::string_view text);

// `text` without leading and trailing ASCII whitespace.
absl::string_view StripAsciiWhitespace(absl::string_view text);

// Whether `text` starts (ends) with `affix`.
inline bool StartsWith(absl::string_view text, absl::string_view affix) {
  return Std(text).starts_with(Std(affix));
}
inline bool EndsWith(absl::string_view text, absl::string_view affix) {
  return Std(text).ends_with(Std(affix));
}

// Whether `a` equals `b` (`text` ends with `suffix`), ASCII case ignored.
bool EqualsIgnoreCase(absl::string_view a, absl::string_view b);
bool EndsWithIgnoreCase(absl::string_view text, absl::string_view suffix);

// The parts of `text` between the `separator`s, as absl::StrSplit(text, separator): an
// empty text is one empty part; with `skip_empty`, empty parts are left out.
std::vector<absl::string_view> SplitByChar(absl::string_view text, char separator,
                                           bool skip_empty = false);

// Parses a whole decimal integer as absl::SimpleAtoi does: ASCII whitespace around it and
// one leading '+' (or '-' for signed types) allowed; false on anything else or overflow.
template <typename T>
bool ParseDecimal(absl::string_view text, T* out) {
  static_assert(std::is_integral_v<T>);
  while (!text.empty() && (text.front() == ' ' || (text.front() >= '\t' && text.front() <= '\r'))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || (text.back() >= '\t' && text.back() <= '\r'))) {
    text.remove_suffix(1);
  }
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) return false;
  }
  if (text.empty()) return false;
  if (!std::is_signed_v<T> && text.front() == '-') return false;
  T value;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return false;
  *out = value;
  return true;
}

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_TEXT_H_
