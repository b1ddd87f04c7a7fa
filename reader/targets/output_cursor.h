// OutputCursor: writes text at the end of a std::string through a raw char pointer. It
// makes room in chunks (the string is resized past what is written) and each write is a
// bounds check and a copy, with no std::string::append per piece; Commit() cuts the string
// back to the bytes written. The text formatters write each line through one.
//
//   std::string out = "a";
//   {
//     OutputCursor cursor(&out);
//     cursor.PutLiteral("b=");
//     cursor.PutInt(-42);
//     cursor.Put('\n');
//   }  // out == "ab=-42\n"
//
// Between Commit() (or the destructor) and the next write the string holds exactly what was
// written; while writing, it also holds up to a chunk of unspecified bytes after them, so
// the owner must not read or change the string until the cursor commits.
#ifndef TRACEWIRE_READER_TARGETS_OUTPUT_CURSOR_H_
#define TRACEWIRE_READER_TARGETS_OUTPUT_CURSOR_H_

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::targets {

class OutputCursor {
 public:
  // The least the string grows by when a write needs room.
  static constexpr size_t kChunk = 256;

  // Writes after what *out holds; `out` must outlive the cursor.
  explicit OutputCursor(std::string* out) : out_(out) {}
  OutputCursor(const OutputCursor&) = delete;
  OutputCursor& operator=(const OutputCursor&) = delete;
  ~OutputCursor() { Commit(); }

  // Makes room for `n` more bytes at pos() (the string may move: pointers from pos() taken
  // before are invalid).
  void Reserve(size_t n) {
    if (static_cast<size_t>(limit_ - pos_) < n) Grow(n);
  }
  // Where the next byte goes; at least the bytes of the last Reserve are writable there,
  // minus what was written since. Advance(p) moves the cursor to `p` (pos() <= p <= the
  // reserved end) after the bytes before it were written directly.
  char* pos() { return pos_; }
  void Advance(char* p) { pos_ = p; }

  void Put(char c) {
    Reserve(1);
    *pos_++ = c;
  }
  void PutBytes(const char* data, size_t size) {
    Reserve(size);
    pos_ = CopyBytes(data, size, pos_);
  }
  void Put(absl::string_view text) { PutBytes(text.data(), text.size()); }
  // A string literal without its terminating NUL (the size is a constant: the copy inlines).
  template <size_t N>
  void PutLiteral(const char (&text)[N]) {
    Reserve(N - 1);
    std::memcpy(pos_, text, N - 1);
    pos_ += N - 1;
  }
  // `count` copies of `c`.
  void PutRepeated(char c, size_t count) {
    Reserve(count);
    std::memset(pos_, c, count);
    pos_ += count;
  }
  // Decimal digits of `value` ("-9223372036854775808" .. "18446744073709551615").
  void PutInt(int64_t value) {
    Reserve(kMaxIntDigits);
    pos_ = std::to_chars(pos_, pos_ + kMaxIntDigits, value).ptr;
  }
  void PutUint(uint64_t value) {
    Reserve(kMaxIntDigits);
    pos_ = std::to_chars(pos_, pos_ + kMaxIntDigits, value).ptr;
  }

  // Cuts the string back to the bytes written (the cursor stays usable: the next write
  // makes room again).
  void Commit() {
    if (pos_ == nullptr) return;
    out_->resize(static_cast<size_t>(pos_ - out_->data()));
    pos_ = limit_ = nullptr;
  }
  // Total size of the string once committed (what it held before plus what was written).
  size_t size() const {
    return pos_ == nullptr ? out_->size() : static_cast<size_t>(pos_ - out_->data());
  }
  // The string written to. Read it or append to it directly only after Commit().
  std::string* out() const { return out_; }

  // Copies `size` bytes to `to` and returns the end; short copies (the common case for
  // JSON members) use overlapping word moves instead of a call to memcpy.
  static char* CopyBytes(const char* from, size_t size, char* to) {
    if (size >= 8) {
      if (size > 16) {
        std::memcpy(to, from, size);
        return to + size;
      }
      uint64_t head, tail;
      std::memcpy(&head, from, 8);
      std::memcpy(&tail, from + size - 8, 8);
      std::memcpy(to, &head, 8);
      std::memcpy(to + size - 8, &tail, 8);
    } else if (size >= 4) {
      uint32_t head, tail;
      std::memcpy(&head, from, 4);
      std::memcpy(&tail, from + size - 4, 4);
      std::memcpy(to, &head, 4);
      std::memcpy(to + size - 4, &tail, 4);
    } else if (size > 0) {
      to[0] = from[0];
      to[size / 2] = from[size / 2];
      to[size - 1] = from[size - 1];
    }
    return to + size;
  }

 private:
  static constexpr size_t kMaxIntDigits = 20;

  void Grow(size_t n);

  std::string* out_;
  char* pos_ = nullptr;  // nullptr: committed (the string holds exactly what was written)
  char* limit_ = nullptr;
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_OUTPUT_CURSOR_H_
