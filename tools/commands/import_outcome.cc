#include "tools/commands/import_outcome.h"

#include <cstdio>
#include <string>

#include "tools/cli/exit_codes.h"

namespace tracewire::tools {

int FinishImport(const std::string& input, const ImportOutcome& outcome, OutputFile& out) {
  if (!outcome.output_error.ok()) {
    out.Discard();
    std::fprintf(stderr, "tracewire import: %s\n",
                 std::string(outcome.output_error.message()).c_str());
    return kExitUsage;
  }
  if (!outcome.import_error.ok()) {
    out.Discard();
    std::fprintf(stderr, "tracewire import: %s: %s\n", input.c_str(),
                 std::string(outcome.import_error.message()).c_str());
    return outcome.import_exit;
  }
  if (!outcome.check_error.ok()) {
    out.Discard();
    std::fprintf(stderr,
                 "tracewire import: %s: the imported trace does not decode (a bug in tracewire "
                 "import): %s\n",
                 input.c_str(), std::string(outcome.check_error.message()).c_str());
    return kExitInvalid;
  }
  for (const std::string& lost : outcome.damage) {
    std::fprintf(stderr, "tracewire import: %s: lost: %s\n", input.c_str(), lost.c_str());
  }
  if (absl::Status s = out.Close(); !s.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(s.message()).c_str());
    return kExitUsage;
  }
  return outcome.damage.empty() ? kExitOk : kExitInvalid;
}

}  // namespace tracewire::tools
