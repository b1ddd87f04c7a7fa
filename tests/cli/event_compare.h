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
// the same values and escapes); "t_abs" and "t_rel" equal to the microsecond (git states
// them on its monotonic clock, and `tracewire import` keeps every stated one exactly,
// placing the events git does not time so that each pair keeps its t_rel); and "time"
// within `time_tolerance_us` microseconds. "time" is compared for every event, including
// those git gives no t_abs: it is a value git states (its wall clock, read by the target
// as it writes the line), and the importer keeps it through each generation's clock sync
// independently of where it places the event on the monotonic clock. Its one inherent
// difference: a generation holds events whose wall-minus-monotonic offsets spread over at
// most 2 µs, and its clock sync takes the middle, so a decoded "time" can differ by 1 µs
// (pass 1.0 for imported streams). `stated_tolerance_us` widens the t_abs/t_rel check for
// imports that cannot see every constraint (one-line windows). Returns one message per
// difference (empty when they match).
std::vector<std::string> CompareEventStreams(const std::string& expected, const std::string& actual,
                                             double time_tolerance_us,
                                             double stated_tolerance_us = 0);

}  // namespace tracewire::cli_test

#endif  // TRACEWIRE_TESTS_CLI_EVENT_COMPARE_H_
