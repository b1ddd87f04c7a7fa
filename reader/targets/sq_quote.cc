#include "reader/targets/sq_quote.h"

#include <array>

namespace tracewire::targets {
namespace {

// Bytes that never need quoting: ASCII alphanumerics and git's ok_punct.
constexpr std::array<bool, 256> MakeSafeTable() {
  std::array<bool, 256> table{};
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (char c : {'+', ',', '-', '.', '/', ':', '=', '@', '_', '^'}) {
    table[static_cast<unsigned char>(c)] = true;
  }
  return table;
}
constexpr std::array<bool, 256> kSafe = MakeSafeTable();

bool NeedsQuotes(absl::string_view arg) {
  for (char c : arg) {
    if (!kSafe[static_cast<unsigned char>(c)]) return true;
  }
  return false;
}

}  // namespace

void SqQuotePretty(absl::string_view arg, std::string* out) {
  if (arg.empty()) {
    out->append("''");
    return;
  }
  if (!NeedsQuotes(arg)) {
    out->append(arg.data(), arg.size());
    return;
  }
  out->push_back('\'');
  for (char c : arg) {
    if (c == '\'' || c == '!') {
      const char escaped[4] = {'\'', '\\', c, '\''};
      out->append(escaped, sizeof(escaped));
    } else {
      out->push_back(c);
    }
  }
  out->push_back('\'');
}

void SqQuoteArgvPretty(absl::Span<const absl::string_view> argv, std::string* out) {
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) out->push_back(' ');
    SqQuotePretty(argv[i], out);
  }
}

}  // namespace tracewire::targets
