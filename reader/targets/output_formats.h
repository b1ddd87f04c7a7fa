// Output formats: the one registry of the formats `tracewire decode` writes. Each row names
// the format, makes its formatter, lists the command-line flags of FormatterOptions it reads,
// and says whether its output streams and whether its formatter skips cheaply. The factory
// (MakeFormatter), the decode command's flag checks and help, the docs test and the tests
// that run every format read this table, so a new format is one row here.
#ifndef TRACEWIRE_READER_TARGETS_OUTPUT_FORMATS_H_
#define TRACEWIRE_READER_TARGETS_OUTPUT_FORMATS_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "reader/targets/formatter.h"

namespace tracewire::targets {

// One output format.
struct OutputFormat {
  // Its --format name ("event", "chrome", ...).
  absl::string_view name;
  // Makes its formatter; InvalidArgument for options it cannot write.
  absl::StatusOr<std::unique_ptr<Formatter>> (*make)(const FormatterOptions& options);
  // The flags of FormatterOptions it reads ("brief", "nesting", ...), the names of the
  // command's flags.
  std::vector<absl::string_view> flags;
  // One line for the help: what the output is and what reads it.
  absl::string_view help;
  // True if Write writes each event's output as it comes (false: all of it at Finish).
  bool streams = true;
  // Formatter::skips_cheaply() of its formatter: a parallel decode pays off.
  bool skips = true;
};

// Every format, in the order the help lists them (the default, event, first).
absl::Span<const OutputFormat> OutputFormats();

// The format named `name`, or nullptr.
const OutputFormat* FindOutputFormat(absl::string_view name);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_OUTPUT_FORMATS_H_
