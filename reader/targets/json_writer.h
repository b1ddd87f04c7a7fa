// JsonWriter: builds JSON text with exactly the bytes of git's json-writer (json-writer.c),
// as the EVENT target writes it and t/t0019-json-writer.sh checks it. The exporters reuse it.
//
//   std::string out;
//   JsonWriter jw(&out);
//   jw.BeginObject();
//   jw.ObjectString("event", "version");
//   jw.ObjectBeginArray("argv");
//   jw.ArrayString("git");
//   jw.End();
//   jw.End();  // out == {"event":"version","argv":["git"]}
//
// Rules (as git): members are written in call order, never sorted; compact mode has no
// whitespace; pretty mode puts each member on its own line indented by two spaces per open
// level, with a space after ':' (an empty object is "{\n}"). Strings are escaped byte-wise:
// '"', '\\', \n, \r, \t, \f and \b as two-character escapes, every other byte below 0x20 as
// \u00XX (lowercase hex), everything else (including 0x7f and bytes >= 0x80) copied raw, with
// no UTF-8 validation. Unlike git (C strings) a NUL byte is written as \u0000.
//
// The writer writes through an OutputCursor: the string it appends to holds exactly the
// text written once every opened value is closed (and after json() or destruction); while a
// value is open it may hold unspecified bytes past the text, so the owner reads or appends
// to it only then.
//
// Misuse (a member outside an object, End() with nothing open, ...) is a programming error:
// it is checked with assert() in debug builds, as git BUG()s.
#ifndef TRACEWIRE_READER_TARGETS_JSON_WRITER_H_
#define TRACEWIRE_READER_TARGETS_JSON_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "reader/targets/json_string_cache.h"
#include "reader/targets/output_cursor.h"

namespace tracewire::targets {

// A member key: a string literal, checked when compiled (whether it needs an escape), or
// any other string, checked when written. A key that is a char array but no constant
// (a buffer) must be passed as a string_view.
class JsonKey {
 public:
  template <size_t N>
  consteval JsonKey(const char (&literal)[N])  // NOLINT: implicit, for literals
      : data_(literal), size_(Length(literal)) {
    if (IsPlainText(literal, size_)) size_ |= kPlainBit;
  }
  JsonKey(absl::string_view text) : data_(text.data()), size_(text.size()) {}   // NOLINT
  JsonKey(const std::string& text) : data_(text.data()), size_(text.size()) {}  // NOLINT
  // A key from a table of names the caller knows need no escape (checked by its tests),
  // written as a literal is.
  static JsonKey KnownPlain(absl::string_view text) {
    JsonKey key(text);
    key.size_ |= kPlainBit;
    return key;
  }

  absl::string_view text() const { return absl::string_view(data_, size_ & ~kPlainBit); }
  // True if the key is known to need no escape (a literal that needs none).
  bool known_plain() const { return (size_ & kPlainBit) != 0; }

 private:
  // Two words, so that a key is passed in registers (a separate flag byte would put it in
  // memory, and stall the loads of its words behind the byte's store).
  static constexpr size_t kPlainBit = size_t{1} << (8 * sizeof(size_t) - 1);

  static constexpr size_t Length(const char* text) {
    size_t n = 0;
    while (text[n] != '\0') ++n;
    return n;
  }
  static constexpr bool IsPlainText(const char* text, size_t size) {
    for (size_t i = 0; i < size; ++i) {
      const char c = text[i];
      if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\') return false;
    }
    return true;
  }

  const char* data_;
  size_t size_;  // the length, with kPlainBit set for a key known to need no escape
};

class JsonWriter {
 public:
  // Writes into the writer's own buffer (see json()).
  JsonWriter();
  // Appends to *out, keeping what it already holds; json() is the part this writer wrote.
  // `out` must outlive the writer.
  explicit JsonWriter(std::string* out);
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  // Opens a top-level object or array (jw_object_begin, jw_array_begin). `pretty` selects
  // the layout for everything written until the next Begin call.
  void BeginObject(bool pretty = false);
  void BeginArray(bool pretty = false);

  // Object members (the innermost open value must be an object).
  void ObjectString(JsonKey key, absl::string_view value);
  // ObjectString for a value likely seen on earlier lines (a session id, a thread name, a
  // category): its quoted text comes from `cache`.
  void ObjectRepeatedString(JsonKey key, absl::string_view value, JsonStringCache& cache);
  void ObjectInt(JsonKey key, int64_t value);
  // `precision` digits after the point ("%.*f"); a negative precision means "%f".
  void ObjectDouble(JsonKey key, int precision, double value);
  void ObjectTrue(JsonKey key);
  void ObjectFalse(JsonKey key);
  void ObjectBool(JsonKey key, bool value);
  void ObjectNull(JsonKey key);
  // A member whose value is the complete (terminated) JSON of `sub` (jw_object_sub_jw).
  void ObjectSubJson(JsonKey key, const JsonWriter& sub);
  // A member whose value is the raw JSON text `json`, spliced with git's sub-writer rule:
  // `json_is_pretty` text inside a compact writer is compacted (each '\n' and the spaces
  // after it are dropped; the space after ':' stays); inside a pretty writer it is
  // re-indented under the member; compact text is copied verbatim.
  void ObjectRawJson(JsonKey key, absl::string_view json, bool json_is_pretty);
  // Opens an object/array as the value of member `key` (jw_object_inline_begin_*).
  void ObjectBeginObject(JsonKey key);
  void ObjectBeginArray(JsonKey key);
  // Writes the member prefix of `key` and returns the cursor, through which the caller
  // writes the member's value: one complete JSON value, before the next call on the writer.
  OutputCursor& ObjectRawValue(JsonKey key);
  // Writes the comma that a member needs here and returns the cursor, through which the
  // caller writes one or more complete members ("key":value, separated by commas) before
  // the next call on the writer. Compact layout only (a formatter's fixed line prefix).
  OutputCursor& ObjectRawMembers();

  // Array elements (the innermost open value must be an array).
  void ArrayString(absl::string_view value);
  void ArrayInt(int64_t value);
  void ArrayDouble(int precision, double value);
  void ArrayTrue();
  void ArrayFalse();
  void ArrayBool(bool value);
  void ArrayNull();
  void ArraySubJson(const JsonWriter& sub);
  void ArrayRawJson(absl::string_view json, bool json_is_pretty);
  void ArrayBeginObject();
  void ArrayBeginArray();

  // Closes the innermost open object or array (jw_end).
  void End();

  // True once every opened object/array is closed (jw_is_terminated).
  bool IsTerminated() const { return open_.empty(); }
  // The layout selected by the last Begin call.
  bool pretty() const { return pretty_; }
  // The JSON text written by this writer so far.
  absl::string_view json() const {
    cursor_.Commit();
    return absl::string_view(*cursor_.out()).substr(start_);
  }

 private:
  void Begin(char open, bool pretty);
  // Writes the comma, key and colon of a member.
  void MemberPrefix(JsonKey key);
  void SlowMemberPrefix(absl::string_view key);
  void ElementPrefix();
  void MaybeComma();
  void NewlineAndIndent();
  void AppendSub(absl::string_view json, bool json_is_pretty);

  std::string own_;
  mutable OutputCursor cursor_;  // writes to own_ or the caller's string
  size_t start_;
  std::string open_;  // stack of the open '{' / '['
  bool pretty_ = false;
  bool need_comma_ = false;
};

// Appends `value` as a quoted JSON string with git's byte-wise escaping.
void AppendJsonString(absl::string_view value, std::string* out);
// AppendJsonString through a cursor.
void PutJsonString(absl::string_view value, OutputCursor& cursor);

// Appends `json` with git's compaction of a pretty sub-writer (kill_indent): every '\n' and
// the run of spaces that follows it are dropped.
void AppendCompactedJson(absl::string_view json, std::string* out);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_JSON_WRITER_H_
