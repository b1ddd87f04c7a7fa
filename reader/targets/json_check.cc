#include "reader/targets/json_check.h"

#include <cstdint>

#include "reader/targets/valid_utf8.h"

namespace tracewire::targets {
namespace {

constexpr int kMaxDepth = 256;

class Checker {
 public:
  explicit Checker(absl::string_view text) : text_(text) {}

  bool Document() {
    SkipSpace();
    if (!Value(0)) return false;
    SkipSpace();
    return pos_ == text_.size();
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }

  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) {
      ++pos_;
    }
  }

  bool Literal(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool Value(int depth) {
    if (AtEnd()) return false;
    switch (Peek()) {
      case '{':
        return depth < kMaxDepth && Object(depth + 1);
      case '[':
        return depth < kMaxDepth && Array(depth + 1);
      case '"':
        return String();
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }

  bool Object(int depth) {
    ++pos_;  // '{'
    SkipSpace();
    if (!AtEnd() && Peek() == '}') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (AtEnd() || Peek() != '"' || !String()) return false;
      SkipSpace();
      if (AtEnd() || Peek() != ':') return false;
      ++pos_;
      SkipSpace();
      if (!Value(depth)) return false;
      SkipSpace();
      if (AtEnd()) return false;
      if (Peek() == '}') {
        ++pos_;
        return true;
      }
      if (Peek() != ',') return false;
      ++pos_;
    }
  }

  bool Array(int depth) {
    ++pos_;  // '['
    SkipSpace();
    if (!AtEnd() && Peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      SkipSpace();
      if (!Value(depth)) return false;
      SkipSpace();
      if (AtEnd()) return false;
      if (Peek() == ']') {
        ++pos_;
        return true;
      }
      if (Peek() != ',') return false;
      ++pos_;
    }
  }

  bool String() {
    ++pos_;  // '"'
    while (!AtEnd()) {
      const uint8_t c = static_cast<uint8_t>(Peek());
      ++pos_;
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (AtEnd()) return false;
      const char e = Peek();
      ++pos_;
      if (e == 'u') {
        for (int i = 0; i < 4; ++i, ++pos_) {
          if (AtEnd()) return false;
          const char h = Peek();
          const bool hex =
              (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
          if (!hex) return false;
        }
      } else if (absl::string_view("\"\\/bfnrt").find(e) == absl::string_view::npos) {
        return false;
      }
    }
    return false;
  }

  bool Digits() {
    const size_t start = pos_;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') ++pos_;
    return pos_ > start;
  }

  bool Number() {
    if (!AtEnd() && Peek() == '-') ++pos_;
    if (AtEnd()) return false;
    if (Peek() == '0') {
      ++pos_;
    } else if (!Digits()) {
      return false;
    }
    if (!AtEnd() && Peek() == '.') {
      ++pos_;
      if (!Digits()) return false;
    }
    if (!AtEnd() && (Peek() == 'e' || Peek() == 'E')) {
      ++pos_;
      if (!AtEnd() && (Peek() == '+' || Peek() == '-')) ++pos_;
      if (!Digits()) return false;
    }
    return true;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

bool IsJsonText(absl::string_view text) { return IsValidUtf8(text) && Checker(text).Document(); }

}  // namespace tracewire::targets
