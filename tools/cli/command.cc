#include "tools/cli/command.h"

#include <cstdio>

#include "tools/cli/exit_codes.h"
#include "tools/cli/usage.h"

namespace tracewire::tools {

absl::string_view Command::Synopsis() const {
  const size_t blank_line = help.find("\n\n");
  return blank_line == absl::string_view::npos ? help : help.substr(0, blank_line + 1);
}

int Command::Execute(absl::Span<const std::string> words) const {
  absl::StatusOr<CommandLine> line =
      parse != nullptr ? parse(*this, words) : ParseCommandLine(words, flags);
  if (!line.ok()) return UsageError(*this, line.status().message());
  if (line->help) {
    std::fwrite(help.data(), 1, help.size(), stdout);
    return kExitOk;
  }
  return run(*this, *line);
}

}  // namespace tracewire::tools
