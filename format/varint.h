// Unsigned LEB128 and zigzag varints: the only integer encoding of the wire format.
#ifndef TRACEWIRE_FORMAT_VARINT_H_
#define TRACEWIRE_FORMAT_VARINT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "format/constants.h"

namespace tracewire::format {

// Writes `value` as unsigned LEB128 at `out`, which must have kMaxVarintSize bytes of
// room. Returns the position just past the last byte written.
inline uint8_t* PutUvarint(uint8_t* out, uint64_t value) {
  while (value >= 0x80) {
    *out++ = static_cast<uint8_t>(value) | 0x80;
    value >>= 7;
  }
  *out++ = static_cast<uint8_t>(value);
  return out;
}

// Number of bytes PutUvarint writes for `value` (1 to 10).
inline size_t UvarintSize(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}

// Maps a signed value onto an unsigned one so that small magnitudes stay small.
inline constexpr uint64_t ZigzagEncode(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}

// Inverse of ZigzagEncode.
inline constexpr int64_t ZigzagDecode(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

// Appends `value` as unsigned LEB128 to `out`.
void AppendUvarint(std::string* out, uint64_t value);

// Outcome of decoding one varint.
enum class VarintResult {
  kOk,
  kTruncated,  // input ended before the last byte (high bit clear)
  kOverlong,   // more than kMaxVarintSize bytes
  kOverflow,   // the tenth byte carries bits beyond 64
};

// Decodes one unsigned LEB128 value from [*pos, end). On kOk advances *pos past it and
// stores the value; otherwise leaves *pos unchanged. Encodings that are not minimal but
// fit in 10 bytes are accepted (writers may pad a length slot).
inline VarintResult GetUvarint(const uint8_t** pos, const uint8_t* end, uint64_t* value) {
  const uint8_t* p = *pos;
  if (p < end && *p < 0x80) {  // fast path: one byte
    *value = *p;
    *pos = p + 1;
    return VarintResult::kOk;
  }
  uint64_t result = 0;
  for (int shift = 0, i = 0; i < static_cast<int>(kMaxVarintSize); ++i, shift += 7) {
    if (p >= end) return VarintResult::kTruncated;
    const uint8_t byte = *p++;
    if (i == static_cast<int>(kMaxVarintSize) - 1 && byte > 1) {
      return byte & 0x80 ? VarintResult::kOverlong : VarintResult::kOverflow;
    }
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) {
      *value = result;
      *pos = p;
      return VarintResult::kOk;
    }
  }
  return VarintResult::kOverlong;
}

// Human-readable reason for a failed decode ("truncated varint", ...).
absl::string_view VarintResultName(VarintResult result);

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_VARINT_H_
