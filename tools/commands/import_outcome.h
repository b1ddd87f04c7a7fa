// The end of a streamed import (`tracewire import`): the output is kept only when the input
// converted, the output was written and the converted trace read back whole.
#ifndef TRACEWIRE_TOOLS_COMMANDS_IMPORT_OUTCOME_H_
#define TRACEWIRE_TOOLS_COMMANDS_IMPORT_OUTCOME_H_

#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "tools/cli/output_file.h"

namespace tracewire::tools {

// What a streamed import met, each OK if it met nothing.
struct ImportOutcome {
  absl::Status output_error;  // writing the output (or reading the input): exit 2
  absl::Status import_error;  // converting the input: exit `import_exit`
  int import_exit = 1;
  absl::Status check_error;  // reading the converted trace back: exit 1 (a bug)
  // Parts of the input that were lost, each said on stderr; the import then exits 1 with
  // the rest of the trace written.
  absl::Span<const std::string> damage;
};

// Reports the first failure of `outcome` on stderr (naming `input`) and discards `out`, or
// says what was lost and closes `out`. Returns the command's exit code.
int FinishImport(const std::string& input, const ImportOutcome& outcome, OutputFile& out);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_IMPORT_OUTCOME_H_
