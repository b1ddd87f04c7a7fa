// Usage texts of the `tracewire` command and of each subcommand (printed by --help,
// `tracewire help <command>` and after usage errors). docs/cli.md says the same at length.
#ifndef TRACEWIRE_TOOLS_CLI_USAGE_H_
#define TRACEWIRE_TOOLS_CLI_USAGE_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::tools {

// The overview: every subcommand with a one-line summary, and the exit codes.
std::string GlobalUsage();

// The full help of subcommand `command`, or nullopt if there is no such subcommand.
std::optional<std::string> CommandUsage(absl::string_view command);

// The first line of the subcommand's help ("usage: tracewire decode ..."), for errors.
std::string CommandSynopsis(absl::string_view command);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_USAGE_H_
