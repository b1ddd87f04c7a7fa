// tracewire::Data (tracewire.hpp) records each argument type as docs/api.md says: integers,
// enumerations and bool as data_int, unsigned values above INTMAX_MAX and floating point
// as their text in `data`, strings as `data`.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>

#include "format/varint.h"
#include "gtest/gtest.h"
#include "tests/runtime/trace_file.h"
#include "tests/runtime/traced_child.h"
#include "tracewire/tracewire.h"
#include "tracewire/tracewire.hpp"

namespace tracewire::testing {
namespace {

enum Plain { kPlainValue = 3 };
enum class Scoped : unsigned long long { kLargest = ~0ull };

int EveryDataType() {
  tw_initialize_clock();
  tw_initialize();
  const std::string text = "a std::string";
  char buffer[] = "a char array";
  tracewire::Data("c", "literal zero", 0);
  tracewire::Data("c", "char", 'x');
  tracewire::Data("c", "signed char", static_cast<signed char>(-128));
  tracewire::Data("c", "unsigned char", static_cast<unsigned char>(255));
  tracewire::Data("c", "short", static_cast<short>(-32768));
  tracewire::Data("c", "unsigned short", static_cast<unsigned short>(65535));
  tracewire::Data("c", "int", std::numeric_limits<int>::min());
  tracewire::Data("c", "unsigned", std::numeric_limits<unsigned>::max());
  tracewire::Data("c", "long", std::numeric_limits<long>::min());
  tracewire::Data("c", "unsigned long small", 42UL);
  tracewire::Data("c", "unsigned long max", std::numeric_limits<unsigned long>::max());
  tracewire::Data("c", "long long", std::numeric_limits<long long>::max());
  tracewire::Data("c", "unsigned long long", std::numeric_limits<unsigned long long>::max());
  tracewire::Data("c", "intmax boundary", static_cast<std::uintmax_t>(INTMAX_MAX));
  tracewire::Data("c", "char32_t", U'x');
  tracewire::Data("c", "enum", kPlainValue);
  tracewire::Data("c", "enum class", Scoped::kLargest);
  tracewire::Data("c", "true", true);
  tracewire::Data("c", "false", false);
  tracewire::Data("c", "float", 0.1f);
  tracewire::Data("c", "double", 0.1);
  tracewire::Data("c", "double third", 1.0 / 3);
  tracewire::Data("c", "long double", 2.5L);
  tracewire::Data("c", "large double", 1e100);
  tracewire::Data("c", "infinity", -std::numeric_limits<double>::infinity());
  tracewire::Data("c", "const char*", "a literal");
  tracewire::Data("c", "char*", buffer);
  tracewire::Data("c", "null", static_cast<const char*>(nullptr));
  tracewire::Data("c", "std::string", text);
  tracewire::Data("c", "std::string_view", std::string_view(text).substr(2, 3));
  return tw_cmd_exit(0);
}

class CppDataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string dir = MakeTempDir("cpp_data");
    const int status = RunInChild(ChildEnv({{"TRACEWIRE", dir}}), EveryDataType);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    absl::StatusOr<DecodedTrace> trace = DecodeTraceFile(OnlyFileIn(dir));
    ASSERT_TRUE(trace.ok()) << trace.status();
    for (const DecodedEvent& e : trace->Events("data_int")) {
      integers_[e.site.label.value_or("")] = format::ZigzagDecode(e.Arg("value"));
    }
    for (const DecodedEvent& e : trace->Events("data")) {
      strings_[e.site.label.value_or("")] = e.Str("value_string").value_or("<none>");
    }
  }

  static std::map<std::string, int64_t> integers_;
  static std::map<std::string, std::string> strings_;
};

std::map<std::string, int64_t> CppDataTest::integers_;
std::map<std::string, std::string> CppDataTest::strings_;

TEST_F(CppDataTest, IntegersOfEveryTypeAreDataInt) {
  const std::map<std::string, int64_t> expected = {
      {"literal zero", 0},
      {"char", 'x'},
      {"signed char", -128},
      {"unsigned char", 255},
      {"short", -32768},
      {"unsigned short", 65535},
      {"int", std::numeric_limits<int>::min()},
      {"unsigned", std::numeric_limits<unsigned>::max()},
      {"long", std::numeric_limits<long>::min()},
      {"unsigned long small", 42},
      {"long long", std::numeric_limits<long long>::max()},
      {"intmax boundary", INTMAX_MAX},
      {"char32_t", 'x'},
      {"enum", 3},
      {"true", 1},
      {"false", 0},
  };
  for (const auto& [label, value] : expected) {
    ASSERT_EQ(integers_.count(label), 1u) << label;
    EXPECT_EQ(integers_.at(label), value) << label;
  }
  EXPECT_EQ(integers_.size(), expected.size());
}

TEST_F(CppDataTest, UnsignedValuesAboveIntmaxKeepTheirDigits) {
  EXPECT_EQ(strings_["unsigned long max"], "18446744073709551615");
  EXPECT_EQ(strings_["unsigned long long"], "18446744073709551615");
  EXPECT_EQ(strings_["enum class"], "18446744073709551615");
}

TEST_F(CppDataTest, FloatingPointIsItsShortestExactText) {
  EXPECT_EQ(strings_["float"], "0.1");
  EXPECT_EQ(strings_["double"], "0.1");
  EXPECT_EQ(strings_["double third"], "0.3333333333333333");
  EXPECT_EQ(strings_["long double"], "2.5");
  EXPECT_EQ(strings_["large double"], "1e+100");
  EXPECT_EQ(strings_["infinity"], "-inf");
}

TEST_F(CppDataTest, StringsAreData) {
  EXPECT_EQ(strings_["const char*"], "a literal");
  EXPECT_EQ(strings_["char*"], "a char array");
  EXPECT_EQ(strings_["null"], "");
  EXPECT_EQ(strings_["std::string"], "a std::string");
  EXPECT_EQ(strings_["std::string_view"], "std");
  EXPECT_EQ(strings_.size(), 14u);
}

}  // namespace
}  // namespace tracewire::testing
