// The commands of `tracewire`, in one list: `main` dispatches on it, `tracewire help` lists
// it, `tracewire help CMD` and `CMD --help` print a Command's help from it, and
// tests/cli/help_docs_test checks it against docs/cli.md.
#ifndef TRACEWIRE_TOOLS_COMMANDS_COMMAND_LIST_H_
#define TRACEWIRE_TOOLS_COMMANDS_COMMAND_LIST_H_

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tools/cli/command.h"

namespace tracewire::tools {

// Every command, in the order `tracewire help` lists them.
absl::Span<const Command* const> Commands();

// The command named `name`, or nullptr.
const Command* FindCommand(absl::string_view name);

// Prints "tracewire: unknown command 'WORD'" and the list of commands on stderr; returns
// kExitUsage.
int UnknownCommand(absl::string_view word);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_COMMAND_LIST_H_
