#include "reader/targets/fixed_decimal.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace tracewire::targets {
namespace {

constexpr uint64_t kPow10[] = {1,      10,      100,      1000,      10000,
                               100000, 1000000, 10000000, 100000000, 1000000000};
constexpr int kMaxFastPrecision = 9;
constexpr double kMaxFastValue = 4294967296.0;  // 2^32: value * 10^9 stays below 2^64

// printf fallback for what the fast path does not cover (NaN, infinities, huge values,
// large precisions).
void AppendWithPrintf(double value, int width, int precision, std::string* out) {
  char buffer[512];
  int n = std::snprintf(buffer, sizeof(buffer), "%*.*f", width, precision, value);
  if (n >= 0 && static_cast<size_t>(n) < sizeof(buffer)) {
    out->append(buffer, n);
    return;
  }
  if (n < 0) return;
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), "%*.*f", width, precision, value);
  big.resize(n);
  out->append(big);
}

// round(magnitude * 10^precision), ties to even, computed exactly from the binary value.
// Requires 0 <= magnitude < 2^32 and precision <= 9.
uint64_t ScaledRounded(double magnitude, int precision) {
  uint64_t bits;
  std::memcpy(&bits, &magnitude, sizeof(bits));
  const int exponent_field = static_cast<int>((bits >> 52) & 0x7ff);
  uint64_t mantissa = bits & ((uint64_t{1} << 52) - 1);
  int exponent;  // magnitude = mantissa * 2^exponent
  if (exponent_field == 0) {
    exponent = -1074;
  } else {
    mantissa |= uint64_t{1} << 52;
    exponent = exponent_field - 1075;
  }
  const unsigned __int128 scaled =
      static_cast<unsigned __int128>(mantissa) * kPow10[precision];  // < 2^83
  if (exponent >= 0) return static_cast<uint64_t>(scaled << exponent);
  const int shift = -exponent;
  if (shift > 100) return 0;  // scaled / 2^shift < 2^-17: rounds to 0
  const unsigned __int128 quotient = scaled >> shift;
  const unsigned __int128 remainder = scaled - (quotient << shift);
  const unsigned __int128 half = static_cast<unsigned __int128>(1) << (shift - 1);
  uint64_t result = static_cast<uint64_t>(quotient);
  if (remainder > half || (remainder == half && (result & 1) != 0)) ++result;
  return result;
}

// "00" "01" ... "99": two digits per table lookup.
constexpr auto kDigitPairs = [] {
  std::array<char, 200> pairs{};
  for (int i = 0; i < 100; ++i) {
    pairs[2 * i] = static_cast<char>('0' + i / 10);
    pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
  }
  return pairs;
}();

// Writes the last `digits` decimal digits of `value` at `p` (leading zeros included).
inline void WriteDigitsExactly(uint64_t value, int digits, char* p) {
  char* end = p + digits;
  for (; digits >= 2; digits -= 2) {
    end -= 2;
    std::memcpy(end, &kDigitPairs[2 * (value % 100)], 2);
    value /= 100;
  }
  if (digits == 1) end[-1] = static_cast<char>('0' + value % 10);
}

// Number of decimal digits of `value` (1 for 0).
inline int DigitCount(uint64_t value) {
  int digits = 1;
  for (; value >= 100; value /= 100) digits += 2;
  return digits + (value >= 10 ? 1 : 0);
}

// Writes the fast path's text of `value` (|value| < 2^32, 0 <= precision <= 9) at `p`
// (room for 32 bytes); returns the end. `kPrecision` >= 0 fixes the precision when compiled
// (the divisions by 10^precision become multiplications); -1 takes `precision`.
template <int kPrecision>
char* WriteFixedFast(double value, int precision, char* p) {
  if constexpr (kPrecision >= 0) precision = kPrecision;
  const bool negative = std::signbit(value);
  const uint64_t scaled = ScaledRounded(std::fabs(value), precision);
  const uint64_t unit = kPrecision >= 0 ? kPow10[kPrecision] : kPow10[precision];
  const uint64_t integer = scaled / unit;
  if (negative) *p++ = '-';
  const int integer_digits = DigitCount(integer);
  WriteDigitsExactly(integer, integer_digits, p);
  p += integer_digits;
  if (precision > 0) {
    *p++ = '.';
    WriteDigitsExactly(scaled - integer * unit, precision, p);
    p += precision;
  }
  return p;
}

// WriteFixedFast with the git targets' precision (6) fixed when compiled.
char* WriteFixedFastAnyPrecision(double value, int precision, char* p) {
  return precision == 6 ? WriteFixedFast<6>(value, 6, p) : WriteFixedFast<-1>(value, precision, p);
}

bool FastPathFits(double value, int precision) {
  return std::fabs(value) < kMaxFastValue && precision <= kMaxFastPrecision;
}

}  // namespace

void AppendFixedPadded(double value, int width, int precision, std::string* out) {
  if (precision < 0) precision = 6;  // printf ignores a negative precision
  if (!FastPathFits(value, precision)) {
    AppendWithPrintf(value, width, precision, out);
    return;
  }
  // Sign, up to 10 integer digits, point, up to 9 decimals.
  char buffer[32];
  const int length =
      static_cast<int>(WriteFixedFastAnyPrecision(value, precision, buffer) - buffer);
  if (length < width) out->append(static_cast<size_t>(width - length), ' ');
  out->append(buffer, static_cast<size_t>(length));
}

void AppendFixed(double value, int precision, std::string* out) {
  AppendFixedPadded(value, 0, precision, out);
}

void PutFixed(double value, int precision, OutputCursor& cursor) {
  if (precision < 0) precision = 6;
  if (!FastPathFits(value, precision)) {
    cursor.Commit();
    AppendWithPrintf(value, 0, precision, cursor.out());
    return;
  }
  cursor.Reserve(32);
  cursor.Advance(WriteFixedFastAnyPrecision(value, precision, cursor.pos()));
}

}  // namespace tracewire::targets
