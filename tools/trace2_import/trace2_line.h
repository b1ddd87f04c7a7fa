// Trace2Line: one line of a git Trace2 EVENT stream (GIT_TRACE2_EVENT), parsed and checked
// against the keys git writes for its event, and turned into the arguments of
// the tracewire wire row that records the same event (docs/format.md §13).
#ifndef TRACEWIRE_TOOLS_TRACE2_IMPORT_TRACE2_LINE_H_
#define TRACEWIRE_TOOLS_TRACE2_IMPORT_TRACE2_LINE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/event_spec.h"
#include "format/generation_encoder.h"

namespace tracewire::tools {

// One argument of a wire row after its dt and site, by the row's argument type.
struct ImportArg {
  uint64_t number = 0;              // uint; int (zigzag-encoded); duration (ns)
  std::optional<std::string> text;  // string (nullopt: ID 0, no string)
  std::vector<std::string> list;    // string list
};

// A parsed EVENT line.
struct Trace2Line {
  int line_number = 0;
  format::EventType type = format::EventType::kNone;
  std::string sid;
  std::string thread;
  std::optional<int64_t> time_us;   // "time" as Unix microseconds
  std::optional<int64_t> t_abs_us;  // "t_abs" in microseconds
  std::optional<int64_t> t_rel_us;  // "t_rel" in microseconds
  std::optional<int> nesting;
  format::Site site;            // file, line, category, label (key, name), repo + 1
  std::vector<ImportArg> args;  // the row's arguments after dt and site
};

// Parses line `line_number` (1-based) of an EVENT stream. Errors are InvalidArgument
// messages that start with "line N: ": not a JSON object, an unknown event, a missing,
// mistyped or unknown key. Strings may hold bytes that are not UTF-8 (git writes them
// raw); they are kept byte for byte. A data value that is a JSON integer becomes a
// data_int row; data_json keeps the value's exact bytes.
absl::StatusOr<Trace2Line> ParseTrace2Line(absl::string_view text, int line_number);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_TRACE2_IMPORT_TRACE2_LINE_H_
