#include "tools/query/row_text.h"

#include "absl/strings/str_join.h"
#include "reader/sid_parts.h"

namespace tracewire::tools::query {

std::string CommandLineOf(const reader::Event& event) {
  std::string line = absl::StrJoin(event.argv, " ");
  if (event.kind == reader::EventKind::kChildStart && event.is_git_command) {
    line = line.empty() ? "git" : "git " + line;
  }
  return line;
}

absl::string_view HostOfSid(absl::string_view sid) {
  const absl::string_view own = reader::SidLastComponent(sid);
  const size_t at = own.find("-H");
  if (at == absl::string_view::npos) return {};
  absl::string_view host = own.substr(at + 2);
  return host.substr(0, host.find('-'));
}

}  // namespace tracewire::tools::query
