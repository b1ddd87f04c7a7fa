// Usage texts of the `tracewire` command: the list of commands (`tracewire help`) and the
// usage errors of one command. Each command's own help is in its Command (command.h);
// docs/cli.md says the same at length.
#ifndef TRACEWIRE_TOOLS_CLI_USAGE_H_
#define TRACEWIRE_TOOLS_CLI_USAGE_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tools/cli/command.h"

namespace tracewire::tools {

// The overview: every command of `commands` with its summary, and the exit codes.
std::string GlobalUsage(absl::Span<const Command* const> commands);

// Prints "tracewire NAME: `message`" and the command's synopsis on stderr; returns
// kExitUsage.
int UsageError(const Command& command, absl::string_view message);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_USAGE_H_
