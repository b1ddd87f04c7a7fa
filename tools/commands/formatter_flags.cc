#include "tools/commands/formatter_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, format, "event",
          "decode: output format (event, perf, normal, chrome, otlp); run: perf, normal, event "
          "(default perf)");
ABSL_FLAG(bool, brief, false, "decode, run: brief mode (no time and file:line prefixes)");
ABSL_FLAG(bool, git_exact, false,
          "decode: git's own file:line on the events git writes from its own code");
ABSL_FLAG(int, nesting, 2, "decode, run: EVENT nesting limit for regions and data");
ABSL_FLAG(int, evt, 4, "decode: EVENT format version, 1 to 4 (git's \"evt\")");
ABSL_FLAG(bool, stacks, false,
          "decode: EVENT: add the symbolized \"stack\" of events that have one");

namespace tracewire::tools {

absl::StatusOr<targets::FormatterOptions> FormatterOptionsFromFlags() {
  targets::FormatterOptions options;
  options.brief = absl::GetFlag(FLAGS_brief);
  options.git_exact = absl::GetFlag(FLAGS_git_exact);
  options.event_nesting = absl::GetFlag(FLAGS_nesting);
  if (options.event_nesting < 1) return absl::InvalidArgumentError("--nesting must be >= 1");
  options.event_version = absl::GetFlag(FLAGS_evt);
  if (options.event_version < targets::kMinEventVersion ||
      options.event_version > targets::kMaxEventVersion) {
    return absl::InvalidArgumentError("--evt must be 1, 2, 3 or 4");
  }
  options.event_stacks = absl::GetFlag(FLAGS_stacks);
  return options;
}

}  // namespace tracewire::tools
