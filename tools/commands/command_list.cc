#include "tools/commands/command_list.h"

#include <cstdio>
#include <string>

#include "tools/cli/exit_codes.h"
#include "tools/cli/usage.h"
#include "tools/commands/decode_command.h"
#include "tools/commands/diff_command.h"
#include "tools/commands/dump_command.h"
#include "tools/commands/help_command.h"
#include "tools/commands/import_command.h"
#include "tools/commands/listen_command.h"
#include "tools/commands/query_command.h"
#include "tools/commands/report_command.h"
#include "tools/commands/run_command.h"
#include "tools/commands/stats_command.h"
#include "tools/commands/validate_command.h"
#include "tools/commands/version_command.h"

namespace tracewire::tools {

absl::Span<const Command* const> Commands() {
  static const Command* const kCommands[] = {
      &DecodeCommand(), &ValidateCommand(), &DumpCommand(),    &StatsCommand(),
      &QueryCommand(),  &ImportCommand(),   &ListenCommand(),  &RunCommand(),
      &ReportCommand(), &DiffCommand(),     &VersionCommand(), &HelpCommand(),
  };
  return kCommands;
}

const Command* FindCommand(absl::string_view name) {
  for (const Command* command : Commands()) {
    if (command->name == name) return command;
  }
  return nullptr;
}

int UnknownCommand(absl::string_view word) {
  std::fprintf(stderr, "tracewire: unknown command '%s'\n%s", std::string(word).c_str(),
               GlobalUsage(Commands()).c_str());
  return kExitUsage;
}

}  // namespace tracewire::tools
