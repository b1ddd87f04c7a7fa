// Command: one subcommand of the `tracewire` command as one value — its name, its one-line
// summary, its help (the synopsis first), the flags it accepts and what it runs — as Go's
// cmd/go defines its commands. Each subcommand defines its Command next to its
// implementation (tools/commands/*_command.cc); tools/commands/command_list.h lists them,
// and `main`, `tracewire help`, `tracewire help CMD`, `CMD --help` and usage errors all read
// that list.
#ifndef TRACEWIRE_TOOLS_CLI_COMMAND_H_
#define TRACEWIRE_TOOLS_CLI_COMMAND_H_

#include <string>
#include <vector>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tools/cli/command_line.h"

namespace tracewire::tools {

struct Command {
  // The word that selects it: `tracewire NAME ...`.
  absl::string_view name;
  // One line for the list of commands (`tracewire help`).
  absl::string_view summary;
  // The full help (`tracewire help NAME`, `tracewire NAME --help`): the synopsis
  // ("usage: tracewire NAME ...") up to the first blank line, then what the command does,
  // its flags and its exit codes. Every flag of `flags` is in it (tests/cli/help_docs_test).
  absl::string_view help;
  // The flags it accepts (absl flags, see FlagOf); any other flag is a usage error.
  std::vector<const absl::CommandLineFlag*> flags = {};
  // Splits the words after NAME into flags and arguments, setting the flags. nullptr:
  // ParseCommandLine over `flags` (flags and arguments in any order).
  absl::StatusOr<CommandLine> (*parse)(const Command& command,
                                       absl::Span<const std::string> words) = nullptr;
  // Runs the command on its parsed arguments; returns the exit code (exit_codes.h).
  int (*run)(const Command& command, const CommandLine& line) = nullptr;

  // The synopsis: the help up to its first blank line (with the newline ending it).
  absl::string_view Synopsis() const;
  // Parses `words` (the words after NAME), prints the help on stdout if --help was given,
  // else runs the command; returns the exit code. A parse error is a usage error.
  int Execute(absl::Span<const std::string> words) const;
};

// The handle of an absl flag, for Command::flags.
template <typename T>
const absl::CommandLineFlag* FlagOf(const absl::Flag<T>& flag) {
  return &absl::GetFlagReflectionHandle(flag);
}

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_COMMAND_H_
