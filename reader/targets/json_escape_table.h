// The JSON string escapes of git's json-writer, as a table: for each byte 0 = copied raw,
// 'u' = written as \u00XX (lowercase hex), else the letter written after a backslash.
#ifndef TRACEWIRE_READER_TARGETS_JSON_ESCAPE_TABLE_H_
#define TRACEWIRE_READER_TARGETS_JSON_ESCAPE_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tracewire::targets {

constexpr std::array<char, 256> MakeJsonEscapeTable() {
  std::array<char, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = 'u';
  table['"'] = '"';
  table['\\'] = '\\';
  table['\n'] = 'n';
  table['\r'] = 'r';
  table['\t'] = 't';
  table['\f'] = 'f';
  table['\b'] = 'b';
  return table;
}

// The table, one copy for every writer of JSON strings.
inline constexpr std::array<char, 256> kJsonEscape = MakeJsonEscapeTable();

// The bytes of a string shorter than 16 gathered into two words with overlapping loads, the
// rest padded with 'a' (a byte that needs no escape and is ASCII), so that a check of the
// two words for bytes to escape answers for the string; nothing outside it is read.
inline void GatherShortString(const char* p, size_t n, uint64_t* first, uint64_t* second) {
  constexpr uint64_t kPad = 0x6161616161616161ull;  // "aaaaaaaa"
  *first = kPad;
  *second = kPad;
  if (n >= 8) {
    std::memcpy(first, p, 8);
    std::memcpy(second, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t low, high;
    std::memcpy(&low, p, 4);
    std::memcpy(&high, p + n - 4, 4);
    *first = low | (uint64_t{high} << 32);
  } else if (n > 0) {
    *first = (kPad & ~uint64_t{0xffffff}) | static_cast<unsigned char>(p[0]) |
             uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
             uint64_t{static_cast<unsigned char>(p[n - 1])} << 16;
  }
}

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_JSON_ESCAPE_TABLE_H_
