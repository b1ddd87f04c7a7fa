// The flags that choose the output format and set its options (targets::FormatterOptions):
// --format, --brief, --git_exact, --nesting, --evt and --stacks, taken by `decode` (all)
// and `run` (--format, --brief, --nesting).
#ifndef TRACEWIRE_TOOLS_COMMANDS_FORMATTER_FLAGS_H_
#define TRACEWIRE_TOOLS_COMMANDS_FORMATTER_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "reader/targets/formatter.h"

ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(bool, brief);
ABSL_DECLARE_FLAG(bool, git_exact);
ABSL_DECLARE_FLAG(int, nesting);
ABSL_DECLARE_FLAG(int, evt);
ABSL_DECLARE_FLAG(bool, stacks);

namespace tracewire::tools {

// The formatter options the flags set. InvalidArgument (a message for the user) for
// --nesting below 1 or --evt outside 1 to 4.
absl::StatusOr<targets::FormatterOptions> FormatterOptionsFromFlags();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_FORMATTER_FLAGS_H_
