// The runtime's text helpers (runtime/text.h), checked against what Abseil gives for the
// same input: the runtime uses them in place of StrCat, StrFormat and SimpleAtoi.
#include "runtime/text.h"

#include <climits>
#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace tracewire::runtime {
namespace {

TEST(TextTest, Cat) {
  EXPECT_EQ(Cat({}), "");
  EXPECT_EQ(Cat({"a", "", "bc", std::string(40, 'd')}), "abc" + std::string(40, 'd'));
  const char nul[] = {'x', '\0', 'y'};
  EXPECT_EQ(Cat({absl::string_view(nul, 3), "z"}), std::string(nul, 3) + "z");
}

TEST(TextTest, DecimalAndHexMatchPrintf) {
  for (long long v : {0LL, 7LL, -7LL, 1234567890123LL, LLONG_MIN, LLONG_MAX}) {
    EXPECT_EQ(Dec(v), absl::StrFormat("%d", v));
  }
  for (uint64_t v : {uint64_t{0}, uint64_t{5}, uint64_t{0xabcdef12}, UINT64_MAX}) {
    for (int width : {0, 2, 8, 20}) {
      std::string hex = "<";
      AppendHex(&hex, v, width);
      EXPECT_EQ(hex, absl::StrFormat("<%0*x", width, v));
      std::string dec = "<";
      AppendDec(&dec, v, width);
      EXPECT_EQ(dec, absl::StrFormat("<%0*d", width, v));
    }
  }
  std::string bytes;
  for (int b : {0, 9, 10, 255}) AppendHexByte(&bytes, static_cast<unsigned char>(b));
  EXPECT_EQ(bytes, "00090aff");
}

TEST(TextTest, ParseDecimalAgreesWithSimpleAtoi) {
  for (const char* text : {"0",
                           "42",
                           "+42",
                           "-42",
                           " 42",
                           "42 ",
                           "\t42\n",
                           "",
                           " ",
                           "+",
                           "-",
                           "+-1",
                           "--1",
                           "++1",
                           "4 2",
                           "42x",
                           "0x10",
                           "007",
                           "18446744073709551615",
                           "18446744073709551616",
                           "9223372036854775807",
                           "9223372036854775808",
                           "-9223372036854775808",
                           "-9223372036854775809",
                           "2147483647",
                           "2147483648",
                           "-2147483648",
                           "-2147483649"}) {
    SCOPED_TRACE(text);
    uint64_t u_expected = 0, u_got = 0;
    const bool u_ok = absl::SimpleAtoi(text, &u_expected);
    EXPECT_EQ(ParseDecimal(text, &u_got), u_ok);
    if (u_ok) EXPECT_EQ(u_got, u_expected);
    int64_t s_expected = 0, s_got = 0;
    const bool s_ok = absl::SimpleAtoi(text, &s_expected);
    EXPECT_EQ(ParseDecimal(text, &s_got), s_ok);
    if (s_ok) EXPECT_EQ(s_got, s_expected);
    int i_expected = 0, i_got = 0;
    const bool i_ok = absl::SimpleAtoi(text, &i_expected);
    EXPECT_EQ(ParseDecimal(text, &i_got), i_ok);
    if (i_ok) EXPECT_EQ(i_got, i_expected);
  }
}

}  // namespace
}  // namespace tracewire::runtime
