#include "tools/commands/version_command.h"

#include <cstdio>
#include <string>

#include "format/constants.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/usage.h"
#include "tools/version.h"

namespace tracewire::tools {
namespace {

// The help of `tracewire version`.
constexpr char kHelp[] =
    "usage: tracewire version\n"
    "       tracewire --version\n"
    "\n"
    "Prints \"tracewire version V (trace format version F)\": the release of the\n"
    "command and the version of the trace format it reads and writes.\n";

// Every word is an argument (`version --help` too): `version` takes none.
absl::StatusOr<CommandLine> ParseVersionArguments(const Command&,
                                                  absl::Span<const std::string> words) {
  CommandLine line;
  line.positional.assign(words.begin(), words.end());
  return line;
}

int RunVersionCommand(const Command& command, const CommandLine& line) {
  if (!line.positional.empty()) return UsageError(command, "takes no arguments");
  std::printf("tracewire version %s (trace format version %u)\n", kTracewireVersion,
              static_cast<unsigned>(format::kFormatVersion));
  return kExitOk;
}

}  // namespace

const Command& VersionCommand() {
  static const Command* const command = new Command{
      .name = "version",
      .summary = "print the version of tracewire and of its trace format",
      .help = kHelp,
      .parse = ParseVersionArguments,
      .run = RunVersionCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
