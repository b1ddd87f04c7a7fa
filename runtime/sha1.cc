#include "runtime/sha1.h"

#include <cstring>

namespace tracewire::runtime {
namespace {

constexpr size_t kBlockBytes = 64;

uint32_t RotateLeft(uint32_t value, int bits) { return (value << bits) | (value >> (32 - bits)); }

uint32_t LoadBigEndian32(const uint8_t* bytes) {
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) | (uint32_t{bytes[2]} << 8) |
         uint32_t{bytes[3]};
}

// One 64-byte block through the 80 rounds of FIPS 180-4 section 6.1.2.
void CompressBlock(const uint8_t* block, uint32_t state[5]) {
  uint32_t schedule[80];
  for (int t = 0; t < 16; ++t) schedule[t] = LoadBigEndian32(block + 4 * t);
  for (int t = 16; t < 80; ++t) {
    schedule[t] =
        RotateLeft(schedule[t - 3] ^ schedule[t - 8] ^ schedule[t - 14] ^ schedule[t - 16], 1);
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4];
  for (int t = 0; t < 80; ++t) {
    uint32_t mix, constant;
    if (t < 20) {
      mix = (b & c) | (~b & d);
      constant = 0x5A827999;
    } else if (t < 40) {
      mix = b ^ c ^ d;
      constant = 0x6ED9EBA1;
    } else if (t < 60) {
      mix = (b & c) | (b & d) | (c & d);
      constant = 0x8F1BBCDC;
    } else {
      mix = b ^ c ^ d;
      constant = 0xCA62C1D6;
    }
    const uint32_t next = RotateLeft(a, 5) + mix + e + constant + schedule[t];
    e = d;
    d = c;
    c = RotateLeft(b, 30);
    b = a;
    a = next;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
}

}  // namespace

std::array<uint8_t, 20> Sha1(std::string_view data) {
  uint32_t state[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t whole = data.size() - data.size() % kBlockBytes;
  for (size_t offset = 0; offset < whole; offset += kBlockBytes) {
    CompressBlock(bytes + offset, state);
  }
  // Padding: 0x80, zeros, then the message length in bits as a big-endian 64-bit number,
  // in one block or two.
  uint8_t tail[2 * kBlockBytes] = {};
  const size_t rest = data.size() - whole;
  if (rest != 0) std::memcpy(tail, bytes + whole, rest);
  tail[rest] = 0x80;
  const size_t tail_size = rest + 1 + 8 <= kBlockBytes ? kBlockBytes : 2 * kBlockBytes;
  const uint64_t bit_length = static_cast<uint64_t>(data.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_size - 1 - i] = static_cast<uint8_t>(bit_length >> (8 * i));
  for (size_t offset = 0; offset < tail_size; offset += kBlockBytes) {
    CompressBlock(tail + offset, state);
  }
  std::array<uint8_t, 20> digest;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<uint8_t>(state[i] >> (24 - 8 * j));
  }
  return digest;
}

}  // namespace tracewire::runtime
