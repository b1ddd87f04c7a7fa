#include "reader/targets/json_writer.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "reader/targets/fixed_decimal.h"
#include "reader/targets/json_escape_table.h"

namespace tracewire::targets {
namespace {

constexpr const std::array<char, 256>& kEscape = kJsonEscape;

// Keys longer than this take the general path (a key is nearly always a short literal).
constexpr size_t kShortKey = 120;

#if defined(__SSE2__)
// True if a byte of `v` is below 0x20, '"' or '\\'.
inline bool HasEscapedByte(__m128i v) {
  const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
  const __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
  const __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
  return _mm_movemask_epi8(_mm_or_si128(control, _mm_or_si128(quote, backslash))) != 0;
}
#else
// True if a byte of the 8-byte word `x` is below 0x20, '"' or '\\' (the classic "has a
// byte less than" / "has a zero byte" tests, exact for whether any byte matches).
inline bool HasEscapedByte(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101ull;
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  const uint64_t quote = x ^ (kOnes * '"');
  const uint64_t backslash = x ^ (kOnes * '\\');
  return (((x - kOnes * 0x20) & ~x) | ((quote - kOnes) & ~quote) |
          ((backslash - kOnes) & ~backslash)) &
         kHigh;
}
#endif

// True if AppendJsonString copies `value` unchanged between its quotes. Words are tested
// at once; a short string or tail with overlapping loads (padded with a byte that needs no
// escape), so that nothing is read outside `value`.
inline bool IsPlain(absl::string_view value) {
  const char* p = value.data();
  const size_t n = value.size();
  uint64_t first, second;
  if (n >= 16) {
#if defined(__SSE2__)
    const char* const last = p + n - 16;
    for (; p < last; p += 16) {
      if (HasEscapedByte(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)))) return false;
    }
    return !HasEscapedByte(_mm_loadu_si128(reinterpret_cast<const __m128i*>(last)));
#else
    const char* const last = p + n - 8;
    for (; p < last; p += 8) {
      std::memcpy(&first, p, 8);
      if (HasEscapedByte(first)) return false;
    }
    std::memcpy(&first, last, 8);
    return !HasEscapedByte(first);
#endif
  }
  GatherShortString(p, n, &first, &second);
#if defined(__SSE2__)
  return !HasEscapedByte(_mm_set_epi64x(static_cast<int64_t>(second), static_cast<int64_t>(first)));
#else
  return !HasEscapedByte(first) && !HasEscapedByte(second);
#endif
}

}  // namespace

void PutJsonString(absl::string_view value, OutputCursor& cursor) {
  if (IsPlain(value)) {
    cursor.Reserve(value.size() + 2);
    char* p = cursor.pos();
    *p++ = '"';
    p = OutputCursor::CopyBytes(value.data(), value.size(), p);
    *p++ = '"';
    cursor.Advance(p);
    return;
  }
  cursor.Put('"');
  const char* p = value.data();
  const char* const end = p + value.size();
  while (p < end) {
    const char* run = p;
    while (p < end && kEscape[static_cast<unsigned char>(*p)] == 0) ++p;
    if (p > run) cursor.PutBytes(run, p - run);
    if (p == end) break;
    const unsigned char c = static_cast<unsigned char>(*p++);
    const char escape = kEscape[c];
    if (escape == 'u') {
      static constexpr char kHex[] = "0123456789abcdef";
      const char text[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
      cursor.PutBytes(text, sizeof(text));
    } else {
      const char text[2] = {'\\', escape};
      cursor.PutBytes(text, sizeof(text));
    }
  }
  cursor.Put('"');
}

void AppendJsonString(absl::string_view value, std::string* out) {
  OutputCursor cursor(out);
  PutJsonString(value, cursor);
}

void AppendCompactedJson(absl::string_view json, std::string* out) {
  size_t i = 0;
  while (i < json.size()) {
    const size_t newline = json.find('\n', i);
    if (newline == absl::string_view::npos) {
      out->append(json.data() + i, json.size() - i);
      return;
    }
    out->append(json.data() + i, newline - i);
    i = newline + 1;
    while (i < json.size() && json[i] == ' ') ++i;
  }
}

JsonWriter::JsonWriter() : cursor_(&own_), start_(0) {}

JsonWriter::JsonWriter(std::string* out) : cursor_(out), start_(out->size()) {}

void JsonWriter::Begin(char open, bool pretty) {
  pretty_ = pretty;
  cursor_.Put(open);
  open_.push_back(open);
  need_comma_ = false;
}

void JsonWriter::BeginObject(bool pretty) { Begin('{', pretty); }
void JsonWriter::BeginArray(bool pretty) { Begin('[', pretty); }

void JsonWriter::MaybeComma() {
  if (need_comma_) {
    cursor_.Put(',');
  } else {
    need_comma_ = true;
  }
}

void JsonWriter::NewlineAndIndent() {
  cursor_.Put('\n');
  cursor_.PutRepeated(' ', 2 * open_.size());
}

inline void JsonWriter::MemberPrefix(JsonKey key) {
  assert(!open_.empty() && open_.back() == '{');
  const absl::string_view text = key.text();
  if (pretty_ || !(key.known_plain() || (text.size() <= kShortKey && IsPlain(text)))) {
    SlowMemberPrefix(text);
    return;
  }
  // ',' '"' key '"' ':'
  cursor_.Reserve(text.size() + 4);
  char* p = cursor_.pos();
  *p = ',';
  p += need_comma_ ? 1 : 0;
  need_comma_ = true;
  *p++ = '"';
  p = OutputCursor::CopyBytes(text.data(), text.size(), p);
  *p++ = '"';
  *p++ = ':';
  cursor_.Advance(p);
}

void JsonWriter::SlowMemberPrefix(absl::string_view key) {
  MaybeComma();
  if (pretty_) NewlineAndIndent();
  PutJsonString(key, cursor_);
  cursor_.Put(':');
  if (pretty_) cursor_.Put(' ');
}

void JsonWriter::ElementPrefix() {
  assert(!open_.empty() && open_.back() == '[');
  MaybeComma();
  if (pretty_) NewlineAndIndent();
}

void JsonWriter::AppendSub(absl::string_view json, bool json_is_pretty) {
  if (pretty_ && !open_.empty() && json_is_pretty) {
    // increase_indent: every line of the sub-value moves right by the current indentation.
    const size_t indent = 2 * open_.size();
    for (char c : json) {
      cursor_.Put(c);
      if (c == '\n') cursor_.PutRepeated(' ', indent);
    }
    return;
  }
  if (!pretty_ && json_is_pretty) {
    size_t i = 0;
    while (i < json.size()) {
      const size_t newline = json.find('\n', i);
      if (newline == absl::string_view::npos) {
        cursor_.PutBytes(json.data() + i, json.size() - i);
        return;
      }
      cursor_.PutBytes(json.data() + i, newline - i);
      i = newline + 1;
      while (i < json.size() && json[i] == ' ') ++i;
    }
    return;
  }
  cursor_.Put(json);
}

void JsonWriter::ObjectString(JsonKey key, absl::string_view value) {
  MemberPrefix(key);
  PutJsonString(value, cursor_);
}

void JsonWriter::ObjectRepeatedString(JsonKey key, absl::string_view value,
                                      JsonStringCache& cache) {
  MemberPrefix(key);
  cursor_.Put(cache.Quoted(value));
}

void JsonWriter::ObjectInt(JsonKey key, int64_t value) {
  MemberPrefix(key);
  cursor_.PutInt(value);
}

void JsonWriter::ObjectDouble(JsonKey key, int precision, double value) {
  MemberPrefix(key);
  PutFixed(value, precision < 0 ? 6 : precision, cursor_);
}

void JsonWriter::ObjectTrue(JsonKey key) {
  MemberPrefix(key);
  cursor_.PutLiteral("true");
}

void JsonWriter::ObjectFalse(JsonKey key) {
  MemberPrefix(key);
  cursor_.PutLiteral("false");
}

void JsonWriter::ObjectBool(JsonKey key, bool value) {
  if (value) {
    ObjectTrue(key);
  } else {
    ObjectFalse(key);
  }
}

void JsonWriter::ObjectNull(JsonKey key) {
  MemberPrefix(key);
  cursor_.PutLiteral("null");
}

void JsonWriter::ObjectSubJson(JsonKey key, const JsonWriter& sub) {
  assert(sub.IsTerminated());
  MemberPrefix(key);
  AppendSub(sub.json(), sub.pretty());
}

void JsonWriter::ObjectRawJson(JsonKey key, absl::string_view json, bool json_is_pretty) {
  MemberPrefix(key);
  AppendSub(json, json_is_pretty);
}

OutputCursor& JsonWriter::ObjectRawValue(JsonKey key) {
  MemberPrefix(key);
  return cursor_;
}

OutputCursor& JsonWriter::ObjectRawMembers() {
  assert(!open_.empty() && open_.back() == '{' && !pretty_);
  MaybeComma();
  return cursor_;
}

void JsonWriter::ObjectBeginObject(JsonKey key) {
  MemberPrefix(key);
  Begin('{', pretty_);
}

void JsonWriter::ObjectBeginArray(JsonKey key) {
  MemberPrefix(key);
  Begin('[', pretty_);
}

void JsonWriter::ArrayString(absl::string_view value) {
  ElementPrefix();
  PutJsonString(value, cursor_);
}

void JsonWriter::ArrayInt(int64_t value) {
  ElementPrefix();
  cursor_.PutInt(value);
}

void JsonWriter::ArrayDouble(int precision, double value) {
  ElementPrefix();
  PutFixed(value, precision < 0 ? 6 : precision, cursor_);
}

void JsonWriter::ArrayTrue() {
  ElementPrefix();
  cursor_.PutLiteral("true");
}

void JsonWriter::ArrayFalse() {
  ElementPrefix();
  cursor_.PutLiteral("false");
}

void JsonWriter::ArrayBool(bool value) {
  if (value) {
    ArrayTrue();
  } else {
    ArrayFalse();
  }
}

void JsonWriter::ArrayNull() {
  ElementPrefix();
  cursor_.PutLiteral("null");
}

void JsonWriter::ArraySubJson(const JsonWriter& sub) {
  assert(sub.IsTerminated());
  ElementPrefix();
  AppendSub(sub.json(), sub.pretty());
}

void JsonWriter::ArrayRawJson(absl::string_view json, bool json_is_pretty) {
  ElementPrefix();
  AppendSub(json, json_is_pretty);
}

void JsonWriter::ArrayBeginObject() {
  ElementPrefix();
  Begin('{', pretty_);
}

void JsonWriter::ArrayBeginArray() {
  ElementPrefix();
  Begin('[', pretty_);
}

void JsonWriter::End() {
  assert(!open_.empty());
  if (open_.empty()) return;
  const char open = open_.back();
  open_.pop_back();
  need_comma_ = true;
  if (pretty_) NewlineAndIndent();
  cursor_.Put(open == '{' ? '}' : ']');
  // The outermost value is complete: the string holds exactly the text.
  if (open_.empty()) cursor_.Commit();
}

}  // namespace tracewire::targets
