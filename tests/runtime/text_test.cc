// The runtime's text helpers (runtime/text.h), checked against what Abseil gives for the
// same input: the runtime uses them in place of StrCat, StrFormat, SimpleAtoi, StrSplit,
// the ascii and match helpers and absl::string_view's out-of-line members.
#include "runtime/text.h"

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
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

// Texts with separators at the ends, doubled, alone, whitespace of every kind, case,
// bytes outside ASCII and NUL.
const std::vector<std::string>& ScanTexts() {
  static const auto* texts = new std::vector<std::string>{"",
                                                          ",",
                                                          ",,",
                                                          "a",
                                                          "a,b",
                                                          ",a,,b,",
                                                          "  x y\t",
                                                          "\t\n\v\f\r ",
                                                          " a=b \r",
                                                          "https://u:p@h/x?q=1#f",
                                                          "AbC://",
                                                          "SIG usr1",
                                                          "\xc3\xa9T\xff",
                                                          std::string("a\0b,c", 5),
                                                          "Authorization: x",
                                                          "ssh+GIT",
                                                          "::://",
                                                          "@@",
                                                          "aa",
                                                          "AUTHORIZATION"};
  return *texts;
}

TEST(TextTest, SearchAgreesWithAbsl) {
  const char chars[] = {',', 'a', ':', '@', '\0', ' ', 'x'};
  const absl::string_view needles[] = {"", "://", "a", "aa", "=", ", \t"};
  for (const std::string& t : ScanTexts()) {
    const absl::string_view text = t;
    for (size_t pos = 0; pos <= text.size() + 1; ++pos) {
      for (char c : chars) {
        EXPECT_EQ(Find(text, c, pos), text.find(c, pos)) << t << " " << pos;
      }
      for (absl::string_view needle : needles) {
        EXPECT_EQ(Find(text, needle, pos), text.find(needle, pos)) << t << " " << pos;
        EXPECT_EQ(FindFirstOf(text, needle, pos), text.find_first_of(needle, pos)) << t;
      }
      for (size_t n : {size_t{0}, size_t{1}, size_t{3}, absl::string_view::npos}) {
        if (pos <= text.size()) {
          EXPECT_EQ(Substr(text, pos, n), text.substr(pos, n)) << t << " " << pos;
        } else {
          EXPECT_EQ(Substr(text, pos, n), "") << t << " " << pos;  // clamped, no throw
        }
      }
    }
    for (char c : chars) EXPECT_EQ(RFind(text, c), text.rfind(c)) << t;
  }
}

TEST(TextTest, AsciiAndMatchAgreeWithAbsl) {
  for (int i = 0; i < 256; ++i) {
    const unsigned char c = static_cast<unsigned char>(i);
    EXPECT_EQ(IsAsciiSpace(c), absl::ascii_isspace(c)) << i;
    EXPECT_EQ(IsAsciiUpper(c), absl::ascii_isupper(c)) << i;
    EXPECT_EQ(IsAsciiLower(c), absl::ascii_islower(c)) << i;
    EXPECT_EQ(IsAsciiAlpha(c), absl::ascii_isalpha(c)) << i;
    EXPECT_EQ(IsAsciiDigit(c), absl::ascii_isdigit(c)) << i;
    EXPECT_EQ(IsAsciiAlnum(c), absl::ascii_isalnum(c)) << i;
    EXPECT_EQ(AsciiToLower(c), absl::ascii_tolower(c)) << i;
    EXPECT_EQ(AsciiToUpper(c), absl::ascii_toupper(c)) << i;
  }
  for (const std::string& a : ScanTexts()) {
    EXPECT_EQ(AsciiStrToLower(a), absl::AsciiStrToLower(a)) << a;
    EXPECT_EQ(AsciiStrToUpper(a), absl::AsciiStrToUpper(a)) << a;
    EXPECT_EQ(StripAsciiWhitespace(a), absl::StripAsciiWhitespace(a)) << a;
    for (const std::string& b : ScanTexts()) {
      EXPECT_EQ(StartsWith(a, b), absl::StartsWith(a, b)) << a << "|" << b;
      EXPECT_EQ(EndsWith(a, b), absl::EndsWith(a, b)) << a << "|" << b;
      EXPECT_EQ(EqualsIgnoreCase(a, b), absl::EqualsIgnoreCase(a, b)) << a << "|" << b;
      EXPECT_EQ(EndsWithIgnoreCase(a, b), absl::EndsWithIgnoreCase(a, b)) << a << "|" << b;
    }
  }
}

TEST(TextTest, SplitByCharAgreesWithStrSplit) {
  for (const std::string& t : ScanTexts()) {
    for (char sep : {',', '\n', 'a', '\0'}) {
      const std::vector<absl::string_view> all = absl::StrSplit(t, sep);
      const std::vector<absl::string_view> nonempty = absl::StrSplit(t, sep, absl::SkipEmpty());
      EXPECT_EQ(SplitByChar(t, sep), all) << t;
      EXPECT_EQ(SplitByChar(t, sep, /*skip_empty=*/true), nonempty) << t;
    }
  }
}

}  // namespace
}  // namespace tracewire::runtime
