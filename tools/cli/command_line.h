// CommandLine: the arguments of one `tracewire` subcommand, split into flags and positional
// arguments. Flags are absl flags (ABSL_FLAG), parsed here rather than by
// absl::ParseCommandLine so that each subcommand accepts only its own flags and every usage
// error can exit with code 2 (absl's parser exits with 1).
#ifndef TRACEWIRE_TOOLS_CLI_COMMAND_LINE_H_
#define TRACEWIRE_TOOLS_CLI_COMMAND_LINE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tracewire::tools {

// The parsed arguments of one subcommand.
struct CommandLine {
  std::vector<std::string> positional;         // in order; "-" is positional
  absl::flat_hash_set<std::string> specified;  // names of the flags that were given
  bool help = false;                           // --help, -help or -h was given
  // Every flag given, in order: (name, value as given; "true"/"false" for bare booleans).
  // A repeatable flag reads all of its values here (the absl flag keeps the last).
  std::vector<std::pair<std::string, std::string>> values;

  // True if flag `name` was given.
  bool Has(absl::string_view name) const { return specified.contains(name); }
  // Every value given for flag `name`, in order.
  std::vector<std::string> All(absl::string_view name) const;
};

// Parses `args` (the words after the subcommand name). Accepted forms: --name=value,
// --name value, -name=value and -name value; for bool flags --name, --noname and
// --name=true|false. '-' in a flag name stands for '_' (--otlp-endpoint is --otlp_endpoint).
// "--" ends the flags. Every flag must be in `allowed`; its value is
// parsed by the absl flag itself (absl::CommandLineFlag::ParseFrom) and stored in it.
// Errors are InvalidArgument with a message for the user.
absl::StatusOr<CommandLine> ParseCommandLine(absl::Span<const std::string> args,
                                             absl::Span<const absl::string_view> allowed);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_COMMAND_LINE_H_
