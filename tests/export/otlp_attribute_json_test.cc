// PutUtf8JsonString (the OTLP writer's one-scan string) writes exactly what the two passes
// it replaces write, PutJsonString(ValidUtf8(value)): on plain ASCII, on JSON text (quotes
// and backslashes to escape), on control bytes, on valid and broken UTF-8, at every length
// around the 4-, 8- and 16-byte loads, and on random bytes. The attribute helpers write the
// OTLP attribute objects.
#include "reader/targets/otlp_attribute_json.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/output_cursor.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::targets::otlp {
namespace {

std::string Expected(const std::string& value) {
  std::string scratch;
  std::string out;
  AppendJsonString(ValidUtf8(value, &scratch), &out);
  return out;
}

std::string Actual(const std::string& value) {
  std::string scratch;
  std::string out = "prefix";
  {
    OutputCursor c(&out);
    PutUtf8JsonString(value, &scratch, c);
  }
  EXPECT_EQ(out.substr(0, 6), "prefix");
  return out.substr(6);
}

TEST(OtlpAttributeJsonTest, StringsAsThePassesItReplaces) {
  const std::vector<std::string> pieces = {"a",
                                           "region(bench,r1)",
                                           "\"",
                                           "\\",
                                           "\n",
                                           "\t",
                                           std::string(1, '\0'),
                                           "\x1f",
                                           "\x7f",
                                           "\xc3\xa9",
                                           "\xe2\x82\xac",
                                           "\xf0\x9f\x98\x80",
                                           "\xff",
                                           "\xc3",
                                           "\xed\xa0\x80",
                                           "{\"bench\":{\"count\":\"7\"}}"};
  for (const std::string& piece : pieces) {
    ASSERT_EQ(Actual(piece), Expected(piece));
    // The piece at every position of every length up to 40 bytes, in plain ASCII.
    for (size_t length = piece.size(); length <= 40; ++length) {
      for (size_t at = 0; at + piece.size() <= length; ++at) {
        std::string value(length, 'x');
        value.replace(at, piece.size(), piece);
        ASSERT_EQ(Actual(value), Expected(value)) << "length " << length << " at " << at;
      }
    }
  }
  for (size_t length = 0; length <= 40; ++length) {
    const std::string value(length, 'x');
    ASSERT_EQ(Actual(value), Expected(value)) << length;
  }
}

TEST(OtlpAttributeJsonTest, RandomBytes) {
  std::mt19937 random(32);
  const std::string alphabet = "ab\"\\\n\x01\x7f\x80\xbf\xc3\xa9\xe2\x82\xac\xff{}:,";
  for (int i = 0; i < 20000; ++i) {
    std::string value(random() % 48, ' ');
    const bool ascii_only = i % 2 == 0;
    for (char& c : value) {
      c = ascii_only ? static_cast<char>(0x20 + random() % 0x60)
                     : alphabet[random() % alphabet.size()];
    }
    ASSERT_EQ(Actual(value), Expected(value)) << i;
  }
}

TEST(OtlpAttributeJsonTest, Attributes) {
  std::string scratch;
  std::string out;
  {
    OutputCursor c(&out);
    PutStringAttribute("thread.name", "th01:\"w\"", &scratch, c);
    c.Put(',');
    PutIntAttribute("code.lineno", -42, c);
    c.Put(',');
    PutStringAttribute("code.filepath", "\xff", &scratch, c);
  }
  EXPECT_EQ(out,
            "{\"key\":\"thread.name\",\"value\":{\"stringValue\":\"th01:\\\"w\\\"\"}},"
            "{\"key\":\"code.lineno\",\"value\":{\"intValue\":\"-42\"}},"
            "{\"key\":\"code.filepath\",\"value\":{\"stringValue\":\"\xef\xbf\xbd\"}}");
}

}  // namespace
}  // namespace tracewire::targets::otlp
