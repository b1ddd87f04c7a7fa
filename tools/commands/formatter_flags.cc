#include "tools/commands/formatter_flags.h"

#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reader/targets/output_formats.h"

ABSL_FLAG(std::string, format, "event",
          "decode: output format (event, perf, normal, chrome, otlp, perfetto, folded); run: perf, "
          "normal, "
          "event "
          "(default perf)");
ABSL_FLAG(bool, brief, false, "decode, run: brief mode (no time and file:line prefixes)");
ABSL_FLAG(bool, git_exact, false,
          "decode: git's own file:line on the events git writes from its own code");
ABSL_FLAG(int, nesting, 2, "decode, run: EVENT nesting limit for regions and data");
ABSL_FLAG(int, evt, 4, "decode: EVENT format version, 1 to 4 (git's \"evt\")");
ABSL_FLAG(bool, stacks, false,
          "decode: EVENT: add the symbolized \"stack\" of events that have one");
ABSL_FLAG(bool, regions, false,
          "decode: FOLDED: start each CPU sample's stack with its thread's open regions");

namespace tracewire::tools {
namespace {

// "a", "a and b", "a, b and c".
std::string JoinWithAnd(absl::Span<const absl::string_view> words) {
  if (words.size() < 2) return absl::StrJoin(words, "");
  return absl::StrCat(absl::StrJoin(words.first(words.size() - 1), ", "), " and ", words.back());
}

}  // namespace

absl::Span<const absl::string_view> FormatNames() {
  static const std::vector<absl::string_view>* const kNames = [] {
    auto* names = new std::vector<absl::string_view>();
    for (const targets::OutputFormat& format : targets::OutputFormats()) {
      names->push_back(format.name);
    }
    return names;
  }();
  return *kNames;
}

absl::Span<const FormatterFlag> FormatterFlags() {
  // The flags that set targets::FormatterOptions, in the help's order; the formats each
  // applies to are the registry's (reader/targets/output_formats.h).
  static const std::vector<FormatterFlag>* const kFlags = [] {
    auto* flags = new std::vector<FormatterFlag>();
    for (absl::string_view flag : {"brief", "git_exact", "nesting", "evt", "stacks", "regions"}) {
      FormatterFlag& entry = flags->emplace_back(FormatterFlag{flag, {}});
      for (const targets::OutputFormat& format : targets::OutputFormats()) {
        if (std::find(format.flags.begin(), format.flags.end(), flag) != format.flags.end()) {
          entry.formats.push_back(format.name);
        }
      }
    }
    return flags;
  }();
  return *kFlags;
}

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
  options.folded_regions = absl::GetFlag(FLAGS_regions);
  return options;
}

absl::Status CheckFormatterFlagsApply(const CommandLine& line, absl::string_view format) {
  const absl::Span<const absl::string_view> names = FormatNames();
  if (std::find(names.begin(), names.end(), format) == names.end()) return absl::OkStatus();
  for (const FormatterFlag& flag : FormatterFlags()) {
    if (!line.Has(flag.flag)) continue;
    if (std::find(flag.formats.begin(), flag.formats.end(), format) != flag.formats.end()) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat("--", flag.flag,
                                                   " does not apply to --format=", format,
                                                   " (only to ", JoinWithAnd(flag.formats), ")"));
  }
  return absl::OkStatus();
}

}  // namespace tracewire::tools
