#include "runtime/text.h"

namespace tracewire::runtime {

std::string Cat(std::initializer_list<absl::string_view> parts) {
  size_t size = 0;
  for (absl::string_view part : parts) size += part.size();
  std::string out;
  out.reserve(size);
  for (absl::string_view part : parts) out.append(part.data(), part.size());
  return out;
}

std::string Dec(long long value) { return std::to_string(value); }

void AppendHexByte(std::string* out, unsigned char byte) { AppendHex(out, byte, 2); }

void AppendHex(std::string* out, uint64_t value, int width) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value != 0);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(digits[--n]);
}

void AppendDec(std::string* out, uint64_t value, int width) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(digits[--n]);
}

}  // namespace tracewire::runtime
