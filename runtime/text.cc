#include "runtime/text.h"

#include "runtime/startup_path.h"

namespace tracewire::runtime {

std::string Cat(std::initializer_list<absl::string_view> parts) {
  size_t size = 0;
  for (absl::string_view part : parts) size += part.size();
  std::string out;
  out.reserve(size);
  for (absl::string_view part : parts) out.append(part.data(), part.size());
  return out;
}

TRACEWIRE_STARTUP_PATH std::string AsciiStrToLower(absl::string_view text) {
  std::string out(text.data(), text.size());
  for (char& c : out) c = AsciiToLower(static_cast<unsigned char>(c));
  return out;
}

std::string AsciiStrToUpper(absl::string_view text) {
  std::string out(text.data(), text.size());
  for (char& c : out) c = AsciiToUpper(static_cast<unsigned char>(c));
  return out;
}

absl::string_view StripAsciiWhitespace(absl::string_view text) {
  while (!text.empty() && IsAsciiSpace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && IsAsciiSpace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

bool EqualsIgnoreCase(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiToLower(static_cast<unsigned char>(a[i])) !=
        AsciiToLower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool EndsWithIgnoreCase(absl::string_view text, absl::string_view suffix) {
  return text.size() >= suffix.size() &&
         EqualsIgnoreCase(Substr(text, text.size() - suffix.size()), suffix);
}

std::vector<absl::string_view> SplitByChar(absl::string_view text, char separator,
                                           bool skip_empty) {
  std::vector<absl::string_view> parts;
  size_t begin = 0;
  while (true) {
    const size_t end = Find(text, separator, begin);
    const absl::string_view part =
        Substr(text, begin, end == absl::string_view::npos ? absl::string_view::npos : end - begin);
    if (!skip_empty || !part.empty()) parts.push_back(part);
    if (end == absl::string_view::npos) break;
    begin = end + 1;
  }
  return parts;
}

std::string Dec(long long value) { return std::to_string(value); }

void AppendHexByte(std::string* out, unsigned char byte) { AppendHex(out, byte, 2); }

void AppendHex(std::string* out, uint64_t value, int width) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value & 15];
    value >>= 4;
  } while (value != 0);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(digits[--n]);
}

void AppendDec(std::string* out, uint64_t value, int width) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (int i = n; i < width; ++i) out->push_back('0');
  while (n > 0) out->push_back(digits[--n]);
}

}  // namespace tracewire::runtime
