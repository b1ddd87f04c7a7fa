// Compares git Trace2 EVENT streams line by line, with a tolerance for the time values.
#ifndef TRACEWIRE_TESTS_CLI_EVENT_COMPARE_H_
#define TRACEWIRE_TESTS_CLI_EVENT_COMPARE_H_

#include <string>
#include <vector>

namespace tracewire::cli_test {

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
