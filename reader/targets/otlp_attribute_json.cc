#include "reader/targets/otlp_attribute_json.h"

#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "reader/targets/json_escape_table.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::otlp {
namespace {

constexpr const std::array<char, 256>& kEscape = kJsonEscape;

// True if every byte of `value` is ASCII (so valid UTF-8 as it is).
inline bool IsAscii(absl::string_view value) {
  const char* p = value.data();
  const char* const end = p + value.size();
  for (; end - p >= 8; p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    if (word & 0x8080808080808080ull) return false;
  }
  for (; p < end; ++p) {
    if (static_cast<unsigned char>(*p) >= 0x80) return false;
  }
  return true;
}

// PutJsonString of ASCII text: room for the longest escaping is made once, and the bytes
// are written directly.
void PutEscapedAscii(absl::string_view value, OutputCursor& c) {
  static constexpr char kHex[] = "0123456789abcdef";
  c.Reserve(6 * value.size() + 2);
  char* out = c.pos();
  *out++ = '"';
  for (const char ch : value) {
    const unsigned char byte = static_cast<unsigned char>(ch);
    const char escape = kEscape[byte];
    if (escape == 0) {
      *out++ = ch;
    } else if (escape == 'u') {
      std::memcpy(out, "\\u00", 4);
      out[4] = kHex[byte >> 4];
      out[5] = kHex[byte & 0xf];
      out += 6;
    } else {
      out[0] = '\\';
      out[1] = escape;
      out += 2;
    }
  }
  *out++ = '"';
  c.Advance(out);
}

#if defined(__SSE2__)
// True if a byte of `v` is a control byte, '"', '\\' or not ASCII (the signed compare
// takes the bytes from 0x80 up as negative).
inline bool HasSpecialByte(__m128i v) {
  const __m128i low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  return _mm_movemask_epi8(_mm_or_si128(low, _mm_or_si128(quote, backslash))) != 0;
}
#endif

// True if `value` is ASCII with no byte JSON escapes: ValidUtf8 returns it unchanged and
// PutJsonString copies it between its quotes. Nothing outside `value` is read.
inline bool IsPlainAscii(absl::string_view value) {
  const char* p = value.data();
  const size_t n = value.size();
#if defined(__SSE2__)
  if (n >= 16) {
    const char* const last = p + n - 16;
    for (; p < last; p += 16) {
      if (HasSpecialByte(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))) return false;
    }
    return !HasSpecialByte(_mm_loadu_si128(reinterpret_cast<const __m128i*>(last)));
  }
  // Shorter: up to 16 bytes gathered with overlapping loads, the rest padded with 'a'.
  uint64_t first, second;
  GatherShortString(p, n, &first, &second);
  return !HasSpecialByte(_mm_set_epi64x(static_cast<int64_t>(second), static_cast<int64_t>(first)));
#else
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
  }
  return true;
#endif
}

}  // namespace

void PutUtf8JsonString(absl::string_view value, std::string* scratch, OutputCursor& c) {
  if (!IsPlainAscii(value)) {
    if (IsAscii(value)) {
      PutEscapedAscii(value, c);  // JSON text inside a string: quotes to escape
    } else {
      PutJsonString(ValidUtf8(value, scratch), c);
    }
    return;
  }
  c.Reserve(value.size() + 2);
  char* p = c.pos();
  *p++ = '"';
  p = OutputCursor::CopyBytes(value.data(), value.size(), p);
  *p++ = '"';
  c.Advance(p);
}

void PutStringAttribute(absl::string_view key, absl::string_view value, std::string* scratch,
                        OutputCursor& c) {
  PutAttributeKey(key, c);
  c.PutLiteral(",\"value\":{\"stringValue\":");
  PutUtf8JsonString(value, scratch, c);
  c.PutLiteral("}}");
}

void PutIntAttribute(absl::string_view key, int64_t value, OutputCursor& c) {
  PutAttributeKey(key, c);
  c.PutLiteral(",\"value\":{\"intValue\":\"");
  c.PutInt(value);
  c.PutLiteral("\"}}");
}

}  // namespace tracewire::targets::otlp
