#include "format/varint.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

std::string Bytes(std::initializer_list<uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

std::string Encode(uint64_t value) {
  std::string out;
  AppendUvarint(&out, value);
  return out;
}

// Decodes `input` whole; returns the result, the value and how many bytes were consumed.
VarintResult Decode(const std::string& input, uint64_t* value, size_t* consumed) {
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(input.data());
  const uint8_t* pos = begin;
  const VarintResult result = GetUvarint(&pos, begin + input.size(), value);
  *consumed = pos - begin;
  return result;
}

TEST(VarintTest, EdgeValuesEncodeToExactBytes) {
  const struct {
    uint64_t value;
    std::string bytes;
  } cases[] = {
      {0, Bytes({0x00})},
      {1, Bytes({0x01})},
      {127, Bytes({0x7f})},
      {128, Bytes({0x80, 0x01})},
      {300, Bytes({0xac, 0x02})},
      {16383, Bytes({0xff, 0x7f})},
      {16384, Bytes({0x80, 0x80, 0x01})},
      {uint64_t{1} << 63, Bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01})},
      {UINT64_MAX, Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.value);
    EXPECT_EQ(Encode(c.value), c.bytes);
    EXPECT_EQ(UvarintSize(c.value), c.bytes.size());
    uint8_t buffer[kMaxVarintSize];
    EXPECT_EQ(PutUvarint(buffer, c.value) - buffer, static_cast<ptrdiff_t>(c.bytes.size()));
    uint64_t value = 12345;
    size_t consumed = 0;
    ASSERT_EQ(Decode(c.bytes, &value, &consumed), VarintResult::kOk);
    EXPECT_EQ(value, c.value);
    EXPECT_EQ(consumed, c.bytes.size());
    // Trailing bytes are not consumed.
    ASSERT_EQ(Decode(c.bytes + Bytes({0x05}), &value, &consumed), VarintResult::kOk);
    EXPECT_EQ(value, c.value);
    EXPECT_EQ(consumed, c.bytes.size());
  }
}

TEST(VarintTest, UvarintSizeMatchesEncodingAtEveryBoundary) {
  for (int bits = 0; bits <= 64; ++bits) {
    const uint64_t top = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    for (uint64_t v : {top, top + 1, top - 1}) {
      const size_t expected = v == 0 ? 1 : (64 - __builtin_clzll(v) + 6) / 7;
      EXPECT_EQ(UvarintSize(v), expected) << v;
      const std::string encoded = Encode(v);
      EXPECT_EQ(encoded.size(), UvarintSize(v)) << v;
      uint64_t value = 0;
      size_t consumed = 0;
      ASSERT_EQ(Decode(encoded, &value, &consumed), VarintResult::kOk);
      EXPECT_EQ(value, v);
    }
  }
}

TEST(VarintTest, MoreThanTenBytesIsOverlong) {
  // Eleven bytes: ten continuation bytes, then a terminator.
  std::string input(10, '\x80');
  input.push_back('\x00');
  uint64_t value = 7;
  size_t consumed = 99;
  EXPECT_EQ(Decode(input, &value, &consumed), VarintResult::kOverlong);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(value, 7u);
  // A tenth byte with the continuation bit set is overlong whatever its value bits.
  input = std::string(9, '\xff') + Bytes({0x81, 0x00});
  EXPECT_EQ(Decode(input, &value, &consumed), VarintResult::kOverlong);
  EXPECT_EQ(consumed, 0u);
  EXPECT_EQ(VarintResultName(VarintResult::kOverlong), "overlong varint (more than 10 bytes)");
}

TEST(VarintTest, TenthByteAboveOneOverflows) {
  for (uint8_t tenth : {0x02, 0x03, 0x40, 0x7f}) {
    const std::string input = std::string(9, '\xff') + Bytes({tenth});
    uint64_t value = 7;
    size_t consumed = 99;
    EXPECT_EQ(Decode(input, &value, &consumed), VarintResult::kOverflow) << int{tenth};
    EXPECT_EQ(consumed, 0u);
    EXPECT_EQ(value, 7u);
  }
  EXPECT_EQ(VarintResultName(VarintResult::kOverflow), "varint overflows 64 bits");
}

TEST(VarintTest, TruncatedInputLeavesPositionUnchanged) {
  for (const std::string& input :
       {std::string(), Bytes({0x80}), Bytes({0xff, 0xff}), std::string(9, '\xff')}) {
    uint64_t value = 7;
    size_t consumed = 99;
    EXPECT_EQ(Decode(input, &value, &consumed), VarintResult::kTruncated) << input.size();
    EXPECT_EQ(consumed, 0u);
    EXPECT_EQ(value, 7u);
  }
  // A truncated value in the middle of a buffer: the position stays at its first byte.
  const std::string input = Bytes({0x05, 0x80, 0x80});
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(input.data());
  const uint8_t* pos = begin;
  uint64_t value = 0;
  ASSERT_EQ(GetUvarint(&pos, begin + input.size(), &value), VarintResult::kOk);
  EXPECT_EQ(value, 5u);
  const uint8_t* before = pos;
  EXPECT_EQ(GetUvarint(&pos, begin + input.size(), &value), VarintResult::kTruncated);
  EXPECT_EQ(pos, before);
  EXPECT_EQ(VarintResultName(VarintResult::kTruncated), "truncated varint");
}

TEST(VarintTest, NonMinimalEncodingsUpToTenBytesAreAccepted) {
  const struct {
    std::string bytes;
    uint64_t value;
  } cases[] = {
      {Bytes({0x80, 0x00}), 0},
      {Bytes({0x81, 0x80, 0x00}), 1},
      {Bytes({0xff, 0x80, 0x80, 0x00}), 127},
      {std::string(9, '\x80') + Bytes({0x00}), 0},                  // ten bytes, all padding
      {Bytes({0x85}) + std::string(8, '\x80') + Bytes({0x00}), 5},  // ten bytes
      {std::string(9, '\x80') + Bytes({0x01}), uint64_t{1} << 63},
  };
  for (const auto& c : cases) {
    uint64_t value = 0;
    size_t consumed = 0;
    ASSERT_EQ(Decode(c.bytes, &value, &consumed), VarintResult::kOk) << c.bytes.size();
    EXPECT_EQ(value, c.value);
    EXPECT_EQ(consumed, c.bytes.size());
  }
}

TEST(VarintTest, ZigzagEdges) {
  const struct {
    int64_t value;
    uint64_t encoded;
  } cases[] = {
      {0, 0},
      {-1, 1},
      {1, 2},
      {-2, 3},
      {2, 4},
      {-64, 127},
      {64, 128},
      {std::numeric_limits<int64_t>::max(), UINT64_MAX - 1},
      {std::numeric_limits<int64_t>::min(), UINT64_MAX},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ZigzagEncode(c.value), c.encoded) << c.value;
    EXPECT_EQ(ZigzagDecode(c.encoded), c.value) << c.value;
  }
  static_assert(ZigzagEncode(-1) == 1);
  static_assert(ZigzagDecode(UINT64_MAX) == std::numeric_limits<int64_t>::min());
}

}  // namespace
}  // namespace tracewire::format
