// git's sq_quote_buf_pretty / sq_append_quote_argv_pretty rules (git's quote.c).
#include "reader/targets/sq_quote.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tracewire::targets {
namespace {

std::string Quote(absl::string_view arg) {
  std::string out;
  SqQuotePretty(arg, &out);
  return out;
}

TEST(SqQuoteTest, SafeWordsAreWrittenAsIs) {
  EXPECT_EQ(Quote("name"), "name");
  EXPECT_EQ(Quote("alias.xyz=version"), "alias.xyz=version");
  EXPECT_EQ(Quote("+,-./:=@_^AZaz09"), "+,-./:=@_^AZaz09");
}

TEST(SqQuoteTest, EmptyIsTwoQuotes) { EXPECT_EQ(Quote(""), "''"); }

TEST(SqQuoteTest, QuotesAndEscapes) {
  EXPECT_EQ(Quote("a b"), "'a b'");
  EXPECT_EQ(Quote("a'b"), "'a'\\''b'");
  EXPECT_EQ(Quote("a!b"), "'a'\\!'b'");
  EXPECT_EQ(Quote("hello world"), "'hello world'");
  EXPECT_EQ(Quote("~"), "'~'");
  EXPECT_EQ(Quote("a\tb\x01"), "'a\tb\x01'");
  EXPECT_EQ(Quote("\xc3\xbc"), "'\xc3\xbc'");
  EXPECT_EQ(Quote("https://user:<REDACTED>@example.com/"),
            "'https://user:<REDACTED>@example.com/'");
}

TEST(SqQuoteTest, ArgvIsSpaceSeparatedWithoutLeadingSpace) {
  std::vector<absl::string_view> argv = {"test-tool", "trace2", "003error", "hello world",
                                         "this is a test"};
  std::string out;
  SqQuoteArgvPretty(argv, &out);
  EXPECT_EQ(out, "test-tool trace2 003error 'hello world' 'this is a test'");
  out.clear();
  SqQuoteArgvPretty({}, &out);
  EXPECT_EQ(out, "");
  std::vector<absl::string_view> empty_arg = {"a", ""};
  SqQuoteArgvPretty(empty_arg, &out);
  EXPECT_EQ(out, "a ''");
}

}  // namespace
}  // namespace tracewire::targets
