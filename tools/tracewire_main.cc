// The `tracewire` command: decode, validate, dump, stats and import traces, listen for
// traced processes, run a command traced, and write HTML reports (docs/cli.md). Each
// command is a Command of tools/commands/command_list.h; this file only picks one.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/usage.h"
#include "tools/commands/command_list.h"
#include "tools/commands/help_command.h"
#include "tools/commands/version_command.h"

namespace tracewire::tools {
namespace {

int Main(absl::Span<const std::string> args) {
  if (args.empty()) {
    std::fputs(GlobalUsage(Commands()).c_str(), stderr);
    return kExitUsage;
  }
  const std::string& word = args[0];
  // tracewire's own flags: --help (-help, -h) lists the commands, whatever follows it;
  // --version is `tracewire version`.
  if (IsHelpFlag(word)) return HelpCommand().Execute({});
  const Command* command = word == "--version" ? &VersionCommand() : FindCommand(word);
  if (command == nullptr) return UnknownCommand(word);
  return command->Execute(args.subspan(1));
}

}  // namespace
}  // namespace tracewire::tools

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return tracewire::tools::Main(args);
}
