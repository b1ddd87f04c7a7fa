#include "reader/sid_parts.h"

#include "absl/strings/ascii.h"

namespace tracewire::reader {

absl::string_view SidFirstComponent(absl::string_view sid) {
  const size_t slash = sid.find('/');
  return slash == absl::string_view::npos ? sid : sid.substr(0, slash);
}

absl::string_view SidLastComponent(absl::string_view sid) {
  const size_t slash = sid.rfind('/');
  return slash == absl::string_view::npos ? sid : sid.substr(slash + 1);
}

std::optional<absl::string_view> SidParentComponent(absl::string_view sid) {
  const size_t last = sid.rfind('/');
  if (last == absl::string_view::npos) return std::nullopt;
  return SidLastComponent(sid.substr(0, last));
}

std::optional<uint32_t> PidFromSidComponent(absl::string_view component) {
  const size_t p = component.rfind("-P");
  if (p == absl::string_view::npos) return std::nullopt;
  const absl::string_view hex = component.substr(p + 2);
  if (hex.empty() || hex.size() > 8) return std::nullopt;
  uint32_t pid = 0;
  for (char c : hex) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    const int digit = absl::ascii_isdigit(static_cast<unsigned char>(c))
                          ? c - '0'
                          : absl::ascii_tolower(static_cast<unsigned char>(c)) - 'a' + 10;
    pid = pid * 16 + digit;
  }
  return pid;
}

std::string SidFileName(absl::string_view component) {
  std::string name;
  name.reserve(component.size() + 1);
  if (component.empty() || component[0] == '.') name.push_back('_');
  for (char c : component) {
    const bool safe =
        absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    name.push_back(safe ? c : '_');
  }
  return name;
}

}  // namespace tracewire::reader
