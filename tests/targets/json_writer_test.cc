// JsonWriter against the expectations of git's t/t0019-json-writer.sh and the unit tests of
// t/helper/test-json-writer.c (`test-tool json-writer -u`), plus the byte-level escaping and
// sub-value rules of git's json-writer.c.
#include "reader/targets/json_writer.h"

#include <cstdio>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace tracewire::targets {
namespace {

// ---- test-json-writer.c unit tests (compact and pretty forms) ----

void MakeObj1(JsonWriter& jw, bool pretty) {
  jw.BeginObject(pretty);
  jw.ObjectString("a", "abc");
  jw.ObjectInt("b", 42);
  jw.ObjectTrue("c");
  jw.End();
}

void MakeObj2(JsonWriter& jw, bool pretty) {
  jw.BeginObject(pretty);
  jw.ObjectInt("a", -1);
  jw.ObjectInt("b", 0x7fffffff);
  jw.ObjectInt("c", 0);
  jw.End();
}

void MakeObj3(JsonWriter& jw, bool pretty) {
  jw.BeginObject(pretty);
  jw.ObjectInt("a", 0);
  jw.ObjectInt("b", 0xffffffff);
  jw.ObjectInt("c", 0x7fffffffffffffffLL);
  jw.End();
}

void MakeObj4(JsonWriter& jw, bool pretty) {
  jw.BeginObject(pretty);
  jw.ObjectTrue("t");
  jw.ObjectFalse("f");
  jw.ObjectNull("n");
  jw.End();
}

void MakeArr1(JsonWriter& jw, bool pretty) {
  jw.BeginArray(pretty);
  jw.ArrayString("abc");
  jw.ArrayInt(42);
  jw.ArrayTrue();
  jw.End();
}

void MakeArr2(JsonWriter& jw, bool pretty) {
  jw.BeginArray(pretty);
  jw.ArrayInt(-1);
  jw.ArrayInt(0x7fffffff);
  jw.ArrayInt(0);
  jw.End();
}

void MakeArr3(JsonWriter& jw, bool pretty) {
  jw.BeginArray(pretty);
  jw.ArrayInt(0);
  jw.ArrayInt(0xffffffff);
  jw.ArrayInt(0x7fffffffffffffffLL);
  jw.End();
}

void MakeArr4(JsonWriter& jw, bool pretty) {
  jw.BeginArray(pretty);
  jw.ArrayTrue();
  jw.ArrayFalse();
  jw.ArrayNull();
  jw.End();
}

void MakeInline1(JsonWriter& jw, bool pretty) {
  jw.BeginObject(pretty);
  jw.ObjectBeginObject("obj1");
  jw.ObjectString("a", "abc");
  jw.ObjectInt("b", 42);
  jw.ObjectTrue("c");
  jw.End();
  jw.ObjectBeginArray("arr1");
  jw.ArrayString("abc");
  jw.ArrayInt(42);
  jw.ArrayTrue();
  jw.End();
  jw.End();
}

void MakeInline2(JsonWriter& jw, bool pretty) {
  jw.BeginArray(pretty);
  jw.ArrayBeginArray();
  jw.ArrayInt(1);
  jw.ArrayInt(2);
  jw.End();
  jw.ArrayBeginArray();
  jw.ArrayInt(3);
  jw.ArrayInt(4);
  jw.End();
  jw.ArrayBeginObject();
  jw.ObjectString("a", "abc");
  jw.End();
  jw.End();
}

std::string Build(void (*make)(JsonWriter&, bool), bool pretty) {
  JsonWriter jw;
  make(jw, pretty);
  EXPECT_TRUE(jw.IsTerminated());
  return std::string(jw.json());
}

TEST(JsonWriterUnitTest, CompactForms) {
  EXPECT_EQ(Build(MakeObj1, false), R"({"a":"abc","b":42,"c":true})");
  EXPECT_EQ(Build(MakeObj2, false), R"({"a":-1,"b":2147483647,"c":0})");
  EXPECT_EQ(Build(MakeObj3, false), R"({"a":0,"b":4294967295,"c":9223372036854775807})");
  EXPECT_EQ(Build(MakeObj4, false), R"({"t":true,"f":false,"n":null})");
  EXPECT_EQ(Build(MakeArr1, false), R"(["abc",42,true])");
  EXPECT_EQ(Build(MakeArr2, false), R"([-1,2147483647,0])");
  EXPECT_EQ(Build(MakeArr3, false), R"([0,4294967295,9223372036854775807])");
  EXPECT_EQ(Build(MakeArr4, false), R"([true,false,null])");
  EXPECT_EQ(Build(MakeInline1, false),
            R"({"obj1":{"a":"abc","b":42,"c":true},"arr1":["abc",42,true]})");
  EXPECT_EQ(Build(MakeInline2, false), R"([[1,2],[3,4],{"a":"abc"}])");
}

TEST(JsonWriterUnitTest, Obj5EscapesKeyAndValue) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectString("abc\tdef", "abc\\def");
  jw.End();
  EXPECT_EQ(jw.json(), R"({"abc\tdef":"abc\\def"})");
}

TEST(JsonWriterUnitTest, Obj6DoubleAtPrecision2) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectDouble("a", 2, 3.14159);
  jw.End();
  EXPECT_EQ(jw.json(), R"({"a":3.14})");
}

TEST(JsonWriterUnitTest, Nest1SplicesCompactSubWriters) {
  JsonWriter obj1, arr1;
  MakeObj1(obj1, false);
  MakeArr1(arr1, false);
  JsonWriter nest1;
  nest1.BeginObject();
  nest1.ObjectSubJson("obj1", obj1);
  nest1.ObjectSubJson("arr1", arr1);
  nest1.End();
  EXPECT_EQ(nest1.json(), R"({"obj1":{"a":"abc","b":42,"c":true},"arr1":["abc",42,true]})");
}

TEST(JsonWriterUnitTest, PrettyForms) {
  EXPECT_EQ(Build(MakeObj1, true), "{\n  \"a\": \"abc\",\n  \"b\": 42,\n  \"c\": true\n}");
  EXPECT_EQ(Build(MakeObj2, true), "{\n  \"a\": -1,\n  \"b\": 2147483647,\n  \"c\": 0\n}");
  EXPECT_EQ(Build(MakeObj3, true),
            "{\n  \"a\": 0,\n  \"b\": 4294967295,\n  \"c\": 9223372036854775807\n}");
  EXPECT_EQ(Build(MakeObj4, true), "{\n  \"t\": true,\n  \"f\": false,\n  \"n\": null\n}");
  EXPECT_EQ(Build(MakeArr1, true), "[\n  \"abc\",\n  42,\n  true\n]");
  EXPECT_EQ(Build(MakeArr2, true), "[\n  -1,\n  2147483647,\n  0\n]");
  EXPECT_EQ(Build(MakeArr3, true), "[\n  0,\n  4294967295,\n  9223372036854775807\n]");
  EXPECT_EQ(Build(MakeArr4, true), "[\n  true,\n  false,\n  null\n]");
  EXPECT_EQ(Build(MakeInline1, true),
            "{\n"
            "  \"obj1\": {\n"
            "    \"a\": \"abc\",\n"
            "    \"b\": 42,\n"
            "    \"c\": true\n"
            "  },\n"
            "  \"arr1\": [\n"
            "    \"abc\",\n"
            "    42,\n"
            "    true\n"
            "  ]\n"
            "}");
  EXPECT_EQ(Build(MakeInline2, true),
            "[\n"
            "  [\n"
            "    1,\n"
            "    2\n"
            "  ],\n"
            "  [\n"
            "    3,\n"
            "    4\n"
            "  ],\n"
            "  {\n"
            "    \"a\": \"abc\"\n"
            "  }\n"
            "]");
}

// mixed1: a compact obj1 and a pretty arr1 spliced into a compact and into a pretty writer.
std::string Mixed1(bool pretty) {
  JsonWriter obj1, arr1;
  MakeObj1(obj1, false);
  MakeArr1(arr1, true);
  JsonWriter mixed1;
  mixed1.BeginObject(pretty);
  mixed1.ObjectSubJson("obj1", obj1);
  mixed1.ObjectSubJson("arr1", arr1);
  mixed1.End();
  return std::string(mixed1.json());
}

TEST(JsonWriterUnitTest, Mixed1CompactSuperCompactsPrettySub) {
  EXPECT_EQ(Mixed1(false), R"({"obj1":{"a":"abc","b":42,"c":true},"arr1":["abc",42,true]})");
}

TEST(JsonWriterUnitTest, Mixed1PrettySuperKeepsCompactSubAndReindentsPrettySub) {
  EXPECT_EQ(Mixed1(true),
            "{\n"
            "  \"obj1\": {\"a\":\"abc\",\"b\":42,\"c\":true},\n"
            "  \"arr1\": [\n"
            "    \"abc\",\n"
            "    42,\n"
            "    true\n"
            "  ]\n"
            "}");
}

// ---- t0019 scripted tests ----

TEST(JsonWriterScriptTest, TrivialObjectAndArray) {
  JsonWriter object;
  object.BeginObject();
  object.End();
  EXPECT_EQ(object.json(), "{}");
  JsonWriter array;
  array.BeginArray();
  array.End();
  EXPECT_EQ(array.json(), "[]");
}

TEST(JsonWriterScriptTest, SimpleObject) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectString("a", "abc");
  jw.ObjectInt("b", 42);
  jw.ObjectDouble("c", 2, 3.140);
  jw.ObjectTrue("d");
  jw.ObjectFalse("e");
  jw.ObjectNull("f");
  jw.End();
  EXPECT_EQ(jw.json(), R"({"a":"abc","b":42,"c":3.14,"d":true,"e":false,"f":null})");
}

TEST(JsonWriterScriptTest, SimpleArray) {
  JsonWriter jw;
  jw.BeginArray();
  jw.ArrayString("abc");
  jw.ArrayInt(42);
  jw.ArrayDouble(2, 3.140);
  jw.ArrayTrue();
  jw.ArrayFalse();
  jw.ArrayNull();
  jw.End();
  EXPECT_EQ(jw.json(), R"(["abc",42,3.14,true,false,null])");
}

TEST(JsonWriterScriptTest, EscapeQuotingString) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectString("a", "abc\\def");
  jw.End();
  EXPECT_EQ(jw.json(), R"({"a":"abc\\def"})");
  JsonWriter jw2;
  jw2.BeginObject();
  jw2.ObjectString("a", "abc\"def");
  jw2.End();
  EXPECT_EQ(jw2.json(), R"({"a":"abc\"def"})");
}

TEST(JsonWriterScriptTest, NestedInlineObject) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectString("a", "abc");
  jw.ObjectInt("b", 42);
  jw.ObjectBeginObject("sub1");
  jw.ObjectDouble("c", 2, 3.140);
  jw.ObjectTrue("d");
  jw.ObjectBeginObject("sub2");
  jw.ObjectFalse("e");
  jw.ObjectNull("f");
  jw.End();
  jw.End();
  jw.End();
  EXPECT_EQ(jw.json(),
            R"({"a":"abc","b":42,"sub1":{"c":3.14,"d":true,"sub2":{"e":false,"f":null}}})");
}

TEST(JsonWriterScriptTest, NestedInlineArray) {
  JsonWriter jw;
  jw.BeginArray();
  jw.ArrayString("abc");
  jw.ArrayInt(42);
  jw.ArrayBeginArray();
  jw.ArrayDouble(2, 3.140);
  jw.ArrayTrue();
  jw.ArrayBeginArray();
  jw.ArrayFalse();
  jw.ArrayNull();
  jw.End();
  jw.End();
  jw.End();
  EXPECT_EQ(jw.json(), R"(["abc",42,[3.14,true,[false,null]]])");
}

TEST(JsonWriterScriptTest, NestedInlineObjectAndArray) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectString("a", "abc");
  jw.ObjectInt("b", 42);
  jw.ObjectBeginObject("sub1");
  jw.ObjectDouble("c", 2, 3.140);
  jw.ObjectTrue("d");
  jw.ObjectBeginArray("sub2");
  jw.ArrayFalse();
  jw.ArrayNull();
  jw.End();
  jw.End();
  jw.End();
  EXPECT_EQ(jw.json(), R"({"a":"abc","b":42,"sub1":{"c":3.14,"d":true,"sub2":[false,null]}})");
}

// The "nested inline object and array 2" input, compact or pretty.
std::string NestedTwo(bool pretty) {
  JsonWriter jw;
  jw.BeginObject(pretty);
  jw.ObjectString("a", "abc");
  jw.ObjectInt("b", 42);
  jw.ObjectBeginObject("sub1");
  jw.ObjectDouble("c", 2, 3.140);
  jw.ObjectTrue("d");
  jw.ObjectBeginArray("sub2");
  jw.ArrayFalse();
  jw.ArrayBeginObject();
  jw.ObjectInt("g", 0);
  jw.ObjectInt("h", 1);
  jw.End();
  jw.ArrayNull();
  jw.End();
  jw.End();
  jw.End();
  return std::string(jw.json());
}

TEST(JsonWriterScriptTest, NestedInlineObjectAndArray2) {
  EXPECT_EQ(NestedTwo(false),
            R"({"a":"abc","b":42,"sub1":{"c":3.14,"d":true,"sub2":[false,{"g":0,"h":1},null]}})");
}

TEST(JsonWriterScriptTest, PrettyNestedInlineObjectAndArray2) {
  EXPECT_EQ(NestedTwo(true),
            "{\n"
            "  \"a\": \"abc\",\n"
            "  \"b\": 42,\n"
            "  \"sub1\": {\n"
            "    \"c\": 3.14,\n"
            "    \"d\": true,\n"
            "    \"sub2\": [\n"
            "      false,\n"
            "      {\n"
            "        \"g\": 0,\n"
            "        \"h\": 1\n"
            "      },\n"
            "      null\n"
            "    ]\n"
            "  }\n"
            "}");
}

TEST(JsonWriterScriptTest, InlineObjectAndArrayWithNoMembers) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectString("a", "abc");
  jw.ObjectBeginObject("empty");
  jw.End();
  jw.ObjectInt("b", 42);
  jw.End();
  EXPECT_EQ(jw.json(), R"({"a":"abc","empty":{},"b":42})");

  JsonWriter jw2;
  jw2.BeginObject();
  jw2.ObjectString("a", "abc");
  jw2.ObjectBeginArray("empty");
  jw2.End();
  jw2.ObjectInt("b", 42);
  jw2.End();
  EXPECT_EQ(jw2.json(), R"({"a":"abc","empty":[],"b":42})");
}

TEST(JsonWriterScriptTest, LargerEmptyExample) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectString("a", "abc");
  jw.ObjectBeginArray("empty");
  for (int i = 0; i < 3; ++i) {
    jw.ArrayBeginObject();
    jw.End();
  }
  jw.ArrayBeginArray();
  jw.End();
  jw.ArrayBeginObject();
  jw.End();
  jw.End();
  jw.ObjectInt("b", 42);
  jw.End();
  EXPECT_EQ(jw.json(), R"({"a":"abc","empty":[{},{},{},[],{}],"b":42})");
}

// ---- Byte-level rules of git's json-writer.c ----

TEST(JsonWriterBytesTest, EscapesByteWise) {
  std::string out;
  AppendJsonString(absl::string_view("a\"b\\c\td\ne\r\x01\x1f\x7f/\xc3\xbc\xe2\x82\xac"), &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\td\\ne\\r\\u0001\\u001f\x7f/\xc3\xbc\xe2\x82\xac\"");
}

TEST(JsonWriterBytesTest, EveryControlByte) {
  for (int c = 0; c < 0x20; ++c) {
    std::string out;
    const char byte = static_cast<char>(c);
    AppendJsonString(absl::string_view(&byte, 1), &out);
    std::string expected;
    switch (c) {
      case '\n':
        expected = "\"\\n\"";
        break;
      case '\r':
        expected = "\"\\r\"";
        break;
      case '\t':
        expected = "\"\\t\"";
        break;
      case '\f':
        expected = "\"\\f\"";
        break;
      case '\b':
        expected = "\"\\b\"";
        break;
      default: {
        char text[16];
        snprintf(text, sizeof(text), "\"\\u%04x\"", c);
        expected = text;
      }
    }
    EXPECT_EQ(out, expected) << "byte " << c;
  }
}

TEST(JsonWriterBytesTest, InvalidUtf8IsCopiedRaw) {
  std::string out;
  AppendJsonString(absl::string_view("\xff\xfe\x80"), &out);
  EXPECT_EQ(out, "\"\xff\xfe\x80\"");
}

TEST(JsonWriterBytesTest, DoublePrecisionMinusOneIsPercentF) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectDouble("d", -1, 2.5);
  jw.ObjectDouble("t_abs", 6, 0.000735);
  jw.ObjectDouble("t_rel", 6, 1.509745);
  jw.End();
  EXPECT_EQ(jw.json(), R"({"d":2.500000,"t_abs":0.000735,"t_rel":1.509745})");
}

TEST(JsonWriterBytesTest, RawPrettyJsonIsCompactedKeepingTheSpaceAfterColon) {
  JsonWriter sub;
  sub.BeginObject(true);
  sub.ObjectString("k", "v");
  sub.ObjectBeginArray("a");
  sub.ArrayInt(1);
  sub.ArrayInt(2);
  sub.End();
  sub.End();
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectRawJson("value", sub.json(), /*json_is_pretty=*/true);
  jw.End();
  EXPECT_EQ(jw.json(), R"({"value":{"k": "v","a": [1,2]}})");
}

TEST(JsonWriterBytesTest, RawCompactJsonIsCopiedVerbatim) {
  JsonWriter jw;
  jw.BeginObject();
  jw.ObjectRawJson("value", R"({"traverse_trees_count":1,"traverse_trees_max_depth":1})", true);
  jw.ObjectRawJson("v2", R"({"a": 1})", false);
  jw.End();
  EXPECT_EQ(jw.json(),
            R"({"value":{"traverse_trees_count":1,"traverse_trees_max_depth":1},"v2":{"a": 1}})");
}

TEST(JsonWriterBytesTest, AppendsAfterExistingContent) {
  std::string out = "prefix ";
  JsonWriter jw(&out);
  jw.BeginArray();
  jw.ArrayInt(-9223372036854775807LL - 1);
  jw.End();
  EXPECT_EQ(out, "prefix [-9223372036854775808]");
  EXPECT_EQ(jw.json(), "[-9223372036854775808]");
}

TEST(JsonWriterBytesTest, PrettyEmptyObjectAsGit) {
  JsonWriter jw;
  jw.BeginObject(true);
  jw.End();
  EXPECT_EQ(jw.json(), "{\n}");
}


// The writer's word-at-a-time fast paths against a byte-by-byte statement of the rule, for
// every byte value at every position of strings around the short/long boundary.
std::string ReferenceQuoted(const std::string& value) {
  std::string out = "\"";
  for (const unsigned char c : value) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\f': out += "\\f"; break;
      case '\b': out += "\\b"; break;
      default:
        if (c < 0x20) {
          char text[8];
          std::snprintf(text, sizeof(text), "\\u%04x", c);
          out += text;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

TEST(JsonWriterBytesTest, FastPathsMatchTheByteRule) {
  std::mt19937 rng(3);
  for (const size_t length : {0, 1, 7, 8, 9, 15, 16, 17, 63, 119, 120, 121, 250}) {
    for (int byte = 0; byte < 256; ++byte) {
      std::string value(length, 'a');
      for (char& c : value) c = static_cast<char>(0x20 + rng() % 0x5f);  // printable
      if (length > 0) value[rng() % length] = static_cast<char>(byte);
      std::string expected = ReferenceQuoted(value);
      std::string out = "x";
      AppendJsonString(value, &out);
      ASSERT_EQ(out, "x" + expected) << "length " << length << " byte " << byte;
      JsonWriter jw;
      jw.BeginObject();
      jw.ObjectString(value, value);
      jw.ObjectInt(value, -12);
      jw.ObjectDouble(value, 3, 1.5);
      jw.End();
      ASSERT_EQ(jw.json(), "{" + expected + ":" + expected + "," + expected + ":-12," + expected +
                               ":1.500}")
          << "length " << length << " byte " << byte;
    }
  }
}

}  // namespace
}  // namespace tracewire::targets
