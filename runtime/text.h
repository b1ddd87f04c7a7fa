// Text building for the runtime: concatenation, hex and decimal numbers. The runtime does
// not use Abseil's StrCat, StrFormat or SimpleAtoi, nor absl::Status: they would link
// Abseil's number and floating-point formatting (and with it libm), absl::Cord, and
// libstdc++'s locale and stream classes into every program that links the runtime, and
// every process would pay for relocating and constructing them at start-up.
#ifndef TRACEWIRE_RUNTIME_TEXT_H_
#define TRACEWIRE_RUNTIME_TEXT_H_

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>

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
