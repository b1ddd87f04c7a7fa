// Compares git Trace2 EVENT streams line by line, with a tolerance for the time values.
#ifndef TRACEWIRE_TESTS_CLI_EVENT_COMPARE_H_
#define TRACEWIRE_TESTS_CLI_EVENT_COMPARE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"

namespace tracewire::cli_test {

// Compares `expected` and `actual` (whole streams) line by line: one message if their line
// counts differ, then `compare_line(line_number, want, got, &problems)` (line numbers from
// 1) for each line both have. Returns the messages (empty when they match).
std::vector<std::string> CompareLines(
    const std::string& expected, const std::string& actual,
    absl::FunctionRef<void(size_t, const std::string&, const std::string&,
                           std::vector<std::string>*)>
        compare_line);

// `line` with the values of its top-level "time", "t_abs" and "t_rel" members replaced by
// "_" (everything else byte for byte).
std::string MaskEventTimes(const std::string& line);

// Compares `expected` and `actual` (whole streams): the same number of lines; each pair
// byte-identical once MaskEventTimes is applied (so the same keys in the same order with
// the same values and escapes); and "time", "t_abs" and "t_rel" within `tolerance_us`
// microseconds. Returns one message per difference (empty when they match).
std::vector<std::string> CompareEventStreams(const std::string& expected, const std::string& actual,
                                             double tolerance_us);

}  // namespace tracewire::cli_test

#endif  // TRACEWIRE_TESTS_CLI_EVENT_COMPARE_H_
