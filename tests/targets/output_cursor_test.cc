// OutputCursor (reader/targets/output_cursor.h): growth across the chunk boundary, exact
// commits, integer digits at the int64/uint64 limits, the short-copy paths; PutFixed and
// TimeText::Put through a cursor against their string forms; JsonStringCache hits and misses
// (a reused address holding other bytes must miss) against AppendJsonString.
#include "reader/targets/output_cursor.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "reader/targets/fixed_decimal.h"
#include "reader/targets/json_string_cache.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/time_text.h"

namespace tracewire::targets {
namespace {

TEST(OutputCursorTest, AppendsAfterExistingTextAndCommitsExactly) {
  std::string out = "head:";
  {
    OutputCursor cursor(&out);
    cursor.PutLiteral("b=");
    cursor.PutInt(-42);
    cursor.Put('\n');
    EXPECT_EQ(cursor.size(), 11u);
    // While writing, the string holds at least a chunk of room past the text.
    EXPECT_GE(out.size(), 5 + OutputCursor::kChunk);
  }
  EXPECT_EQ(out, "head:b=-42\n");
}

TEST(OutputCursorTest, GrowsAcrossChunkBoundariesKeepingEveryByte) {
  std::string out;
  std::string expected;
  OutputCursor cursor(&out);
  // Pieces of every size from 0 to 40 bytes, far past several chunks.
  const std::string source = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
  for (int round = 0; round < 200; ++round) {
    for (size_t size = 0; size <= 40; ++size) {
      const std::string piece = source.substr(round % 5, size);
      cursor.PutBytes(piece.data(), piece.size());
      expected += piece;
    }
  }
  ASSERT_GT(expected.size(), 20 * OutputCursor::kChunk);
  // One piece larger than a chunk.
  const std::string big(3 * OutputCursor::kChunk + 7, 'x');
  cursor.Put(big);
  expected += big;
  cursor.PutRepeated(' ', 5);
  expected += "     ";
  EXPECT_EQ(cursor.size(), expected.size());
  cursor.Commit();
  EXPECT_EQ(out, expected);
  // Usable after a commit: the next write makes room again.
  cursor.PutLiteral("tail");
  cursor.Commit();
  EXPECT_EQ(out, expected + "tail");
}

TEST(OutputCursorTest, OwnerMayAppendBetweenCommits) {
  std::string out;
  OutputCursor cursor(&out);
  cursor.PutLiteral("{}");
  cursor.Commit();
  out.push_back('\n');
  cursor.PutLiteral("[]");
  cursor.Commit();
  EXPECT_EQ(out, "{}\n[]");
}

TEST(OutputCursorTest, IntegerDigitsAtTheLimits) {
  std::string out;
  {
    OutputCursor cursor(&out);
    cursor.PutInt(std::numeric_limits<int64_t>::min());
    cursor.Put(' ');
    cursor.PutInt(std::numeric_limits<int64_t>::max());
    cursor.Put(' ');
    cursor.PutInt(0);
    cursor.Put(' ');
    cursor.PutInt(-1);
    cursor.Put(' ');
    cursor.PutUint(std::numeric_limits<uint64_t>::max());
  }
  EXPECT_EQ(out, "-9223372036854775808 9223372036854775807 0 -1 18446744073709551615");
}

TEST(OutputCursorTest, DigitsRightAtTheEndOfTheRoom) {
  // Fill the chunk to one byte short of its end, then write the longest numbers: each must
  // make room for itself.
  for (size_t fill = OutputCursor::kChunk - 25; fill <= OutputCursor::kChunk; ++fill) {
    std::string out;
    {
      OutputCursor cursor(&out);
      cursor.PutRepeated('.', fill);
      cursor.PutInt(std::numeric_limits<int64_t>::min());
      cursor.PutUint(std::numeric_limits<uint64_t>::max());
    }
    EXPECT_EQ(out, std::string(fill, '.') + "-922337203685477580818446744073709551615")
        << "fill " << fill;
  }
}

TEST(OutputCursorTest, CopyBytesEverySizeUpTo40) {
  const std::string source = "The quick brown fox jumps over the lazy dog";
  for (size_t size = 0; size <= 40; ++size) {
    char buffer[64];
    std::memset(buffer, '#', sizeof(buffer));
    char* end = OutputCursor::CopyBytes(source.data(), size, buffer);
    EXPECT_EQ(end, buffer + size);
    EXPECT_EQ(std::string(buffer, size), source.substr(0, size));
    EXPECT_EQ(buffer[size], '#') << "wrote past " << size;
  }
}

TEST(OutputCursorTest, PutFixedMatchesPrintfIncludingTheFallback) {
  const double values[] = {
      0.0,          -0.0,  0.5,   1.0000005, 123.456789, -7.25, 4294967295.999999,
      4294967296.0, 1e300, -1e20, 1.0 / 3};
  for (double value : values) {
    for (int precision : {0, 1, 6, 9, 12}) {
      std::string out = "<";
      {
        OutputCursor cursor(&out);
        cursor.Put('[');
        PutFixed(value, precision, cursor);
        cursor.Put(']');
      }
      char expected[512];
      std::snprintf(expected, sizeof(expected), "<[%.*f]", precision, value);
      EXPECT_EQ(out, expected) << value << " precision " << precision;
    }
  }
}

TEST(OutputCursorTest, TimeTextPutMatchesAppend) {
  TimeText by_string(TimeText::Style::kUtcDateTime);
  TimeText by_cursor(TimeText::Style::kUtcDateTime);
  const absl::Time start =
      absl::FromCivil(absl::CivilSecond(2026, 11, 22, 1, 59, 55), absl::UTCTimeZone());
  std::string expected, out;
  OutputCursor cursor(&out);
  for (int i = 0; i < 50; ++i) {
    const absl::Time t = start + absl::Microseconds(int64_t{37017} * i) - absl::Nanoseconds(1);
    by_string.Append(t, &expected);
    by_cursor.Put(t, cursor);
  }
  cursor.Commit();
  EXPECT_EQ(out, expected);
  EXPECT_EQ(out.substr(0, 27), "2026-11-22T01:59:54.999999Z");
}

std::string Escaped(absl::string_view value) {
  std::string out;
  AppendJsonString(value, &out);
  return out;
}

TEST(JsonStringCacheTest, RepeatsAreHitsWithTheEscapedText) {
  JsonStringCache cache;
  // Both strings in one buffer, 64 bytes apart: the cache finds a string by its address,
  // and two separate allocations could share a slot (then each would evict the other).
  const std::string sid_text = "20261122T015955.975172Z-H0a7c9cdf-P10000";
  std::string storage = sid_text;
  storage.resize(64, ' ');
  storage += "C:\\src\\git\t\"read-cache\".c";  // needs escapes
  const absl::string_view sid = absl::string_view(storage).substr(0, sid_text.size());
  const absl::string_view file = absl::string_view(storage).substr(64);
  EXPECT_EQ(cache.Quoted(sid), Escaped(sid));
  EXPECT_EQ(cache.Quoted(file), R"("C:\\src\\git\t\"read-cache\".c")");
  EXPECT_EQ(cache.misses(), 2u);
  EXPECT_EQ(cache.hits(), 0u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(cache.Quoted(sid), Escaped(sid));
    EXPECT_EQ(cache.Quoted(file), Escaped(file));
  }
  EXPECT_EQ(cache.misses(), 2u);
  EXPECT_EQ(cache.hits(), 20u);
}

TEST(JsonStringCacheTest, SameBytesAtAnotherAddressOrOtherBytesAtTheSameAddressMiss) {
  JsonStringCache cache;
  std::string text = "worker-thread-01";
  const std::string copy = text;
  EXPECT_EQ(cache.Quoted(text), "\"worker-thread-01\"");
  EXPECT_EQ(cache.Quoted(copy), "\"worker-thread-01\"");  // another address: escaped again
  EXPECT_EQ(cache.misses(), 2u);
  // The same address and size, other bytes (a reused table): a miss, never the old text.
  text[0] = '"';
  text[15] = '\n';
  EXPECT_EQ(cache.Quoted(text), "\"\\\"orker-thread-0\\n\"");
  EXPECT_EQ(cache.misses(), 3u);
  // A shorter view at the same address is another string.
  EXPECT_EQ(cache.Quoted(absl::string_view(text.data(), 6)), "\"\\\"orker\"");
  EXPECT_EQ(cache.misses(), 4u);
  EXPECT_EQ(cache.hits(), 0u);
}

TEST(JsonStringCacheTest, EmptyAndLongStrings) {
  JsonStringCache cache;
  EXPECT_EQ(cache.Quoted(absl::string_view()), "\"\"");
  EXPECT_EQ(cache.Quoted(""), "\"\"");
  const std::string longer(JsonStringCache::kMaxCachedSize + 1, '\\');
  EXPECT_EQ(cache.Quoted(longer), Escaped(longer));
  EXPECT_EQ(cache.Quoted(longer), Escaped(longer));
  EXPECT_EQ(cache.hits(), 0u);  // too long to keep
}

TEST(JsonStringCacheTest, JsonWriterRepeatedStringWritesWhatObjectStringWrites) {
  JsonStringCache cache;
  const std::string values[] = {"main", "th01:worker", "a\"b", "", "tab\there"};
  std::string plain_out, cached_out;
  for (int line = 0; line < 3; ++line) {
    for (const std::string& value : values) {
      JsonWriter plain(&plain_out);
      plain.BeginObject();
      plain.ObjectString("k", value);
      plain.End();
      JsonWriter cached(&cached_out);
      cached.BeginObject();
      cached.ObjectRepeatedString("k", value, cache);
      cached.End();
    }
  }
  EXPECT_EQ(cached_out, plain_out);
  EXPECT_EQ(cache.misses(), 4u);  // the empty string is not a lookup
  EXPECT_EQ(cache.hits(), 8u);
}

}  // namespace
}  // namespace tracewire::targets
