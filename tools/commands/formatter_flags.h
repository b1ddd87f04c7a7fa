// The flags that choose the output format and set its options (targets::FormatterOptions):
// --format, --brief, --git_exact, --nesting, --evt, --stacks and --regions, taken by `decode` (all)
// and `run` (--format, --brief, --nesting), and which formats each option flag changes.
// A flag given for a format it does nothing for is a usage error, so that
// `decode --format=perf --nesting=3` does not silently ignore --nesting.
#ifndef TRACEWIRE_TOOLS_COMMANDS_FORMATTER_FLAGS_H_
#define TRACEWIRE_TOOLS_COMMANDS_FORMATTER_FLAGS_H_

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "reader/targets/formatter.h"
#include "tools/cli/command_line.h"

ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(bool, brief);
ABSL_DECLARE_FLAG(bool, git_exact);
ABSL_DECLARE_FLAG(int, nesting);
ABSL_DECLARE_FLAG(int, evt);
ABSL_DECLARE_FLAG(bool, stacks);
ABSL_DECLARE_FLAG(bool, regions);

namespace tracewire::tools {

// An option flag and the formats whose output it changes.
struct FormatterFlag {
  absl::string_view flag;                  // the absl flag's name, e.g. "git_exact"
  std::vector<absl::string_view> formats;  // e.g. {"event", "perf", "normal"}
};

// The formats targets::MakeFormatter makes, in the order the help lists them.
absl::Span<const absl::string_view> FormatNames();

// Every option flag with the formats it applies to (docs/cli.md has the same table).
absl::Span<const FormatterFlag> FormatterFlags();

// The formatter options the flags set. InvalidArgument (a message for the user) for
// --nesting below 1 or --evt outside 1 to 4.
absl::StatusOr<targets::FormatterOptions> FormatterOptionsFromFlags();

// InvalidArgument naming the first option flag given in `line` that does nothing for
// `format` ("--nesting does not apply to --format=perf (only to event)"); OK if every one
// applies, or if `format` is not one of FormatNames() (MakeFormatter reports that).
absl::Status CheckFormatterFlagsApply(const CommandLine& line, absl::string_view format);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_FORMATTER_FLAGS_H_
