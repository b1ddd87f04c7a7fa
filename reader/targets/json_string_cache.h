// JsonStringCache: the quoted, escaped JSON text of strings that repeat line after line
// (a session id, a thread name, a call site's file, a region's category and label), so that
// a formatter copies it instead of checking and escaping the string again on every line.
//
// Entries are found by the string's address and size (the reader hands out views into its
// tables: a string repeats at the same address while its generation is read) and confirmed by
// comparing the bytes, so a reused address holding other text is a miss, never a wrong hit: the
// cache is a pure speed-up, its text is always AppendJsonString's.
#ifndef TRACEWIRE_READER_TARGETS_JSON_STRING_CACHE_H_
#define TRACEWIRE_READER_TARGETS_JSON_STRING_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::targets {

class JsonStringCache {
 public:
  // Strings longer than this are not cached (Quoted escapes them into a scratch buffer).
  static constexpr size_t kMaxCachedSize = 256;

  // A rewrite applied to each string before it is escaped (ValidUtf8 for the exporters):
  // returns `text` or the rewritten text, which it may keep in *scratch.
  using Transform = absl::string_view (*)(absl::string_view text, std::string* scratch);

  // Escapes the strings as they are (`transform` nullptr), or what `transform` makes of them.
  explicit JsonStringCache(Transform transform = nullptr) : transform_(transform) {}

  // `value` (passed through the transform, if any) quoted and escaped exactly as
  // AppendJsonString writes it. The view is valid until the next call.
  absl::string_view Quoted(absl::string_view value) {
    if (value.empty()) return "\"\"";
    Entry& entry = slots_[SlotOf(value.data())];
    if (entry.data == value.data() && entry.size == value.size() &&
        SameBytes(value.data(), entry.original.data(), value.size())) {
      ++hits_;
      return entry.quoted;
    }
    return Miss(entry, value);
  }

  // Lookups answered from the cache, and lookups that escaped the string.
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  static constexpr size_t kSlots = 256;

  struct Entry {
    const char* data = nullptr;
    size_t size = 0;
    std::string original;  // the bytes at `data` when cached
    std::string quoted;
  };

  static size_t SlotOf(const char* data) {
    const auto address = reinterpret_cast<uintptr_t>(data);
    return ((address >> 3) ^ (address >> 11)) % kSlots;
  }
  // memcmp(a, b, size) == 0, with overlapping word loads (never outside the strings) for
  // the usual sizes.
  static bool SameBytes(const char* a, const char* b, size_t size) {
    if (size < 8) {
      if (size >= 4) {
        return ((Word32(a) ^ Word32(b)) | (Word32(a + size - 4) ^ Word32(b + size - 4))) == 0;
      }
      return a[0] == b[0] && a[size / 2] == b[size / 2] && a[size - 1] == b[size - 1];
    }
    if (size > 64) return std::memcmp(a, b, size) == 0;
    uint64_t differ = 0;
    size_t i = 0;
    for (; i + 8 < size; i += 8) differ |= Word(a + i) ^ Word(b + i);
    return (differ | (Word(a + size - 8) ^ Word(b + size - 8))) == 0;
  }
  static uint32_t Word32(const char* p) {
    uint32_t word;
    std::memcpy(&word, p, 4);
    return word;
  }
  static uint64_t Word(const char* p) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    return word;
  }

  absl::string_view Miss(Entry& entry, absl::string_view value);

  Transform transform_;
  std::array<Entry, kSlots> slots_;
  std::string transformed_;  // the transform's scratch
  std::string uncached_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_JSON_STRING_CACHE_H_
