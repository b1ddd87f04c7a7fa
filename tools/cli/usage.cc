#include "tools/cli/usage.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "tools/cli/exit_codes.h"

namespace tracewire::tools {
namespace {

constexpr char kExitCodes[] =
    "Exit codes: 0 success; 1 invalid trace or input (or data lost with --salvage);\n"
    "2 usage or I/O error; 3 spans an OTLP receiver did not accept (--otlp-endpoint).\n";

// The column the summaries start at in the list of commands.
constexpr size_t kSummaryColumn = 12;

}  // namespace

std::string GlobalUsage(absl::Span<const Command* const> commands) {
  std::string text =
      "usage: tracewire <command> [flags] [arguments]\n"
      "\n"
      "tracewire reads traces recorded by the tracewire runtime.\n"
      "\n"
      "Commands:\n";
  for (const Command* command : commands) {
    const size_t width = 2 + command->name.size();
    absl::StrAppend(&text, "  ", command->name,
                    std::string(width < kSummaryColumn ? kSummaryColumn - width : 1, ' '),
                    command->summary, "\n");
  }
  absl::StrAppend(&text,
                  "\n`tracewire <command> --help` or `tracewire help <command>` shows a "
                  "command's flags.\n\n",
                  kExitCodes);
  return text;
}

int UsageError(const Command& command, absl::string_view message) {
  std::fprintf(stderr, "tracewire %s: %s\n%s", std::string(command.name).c_str(),
               std::string(message).c_str(), std::string(command.Synopsis()).c_str());
  return kExitUsage;
}

}  // namespace tracewire::tools
