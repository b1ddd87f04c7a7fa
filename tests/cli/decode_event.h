// Decodes a trace held in memory to git's EVENT lines, for tests that compare a trace with
// the EVENT stream it came from.
#ifndef TRACEWIRE_TESTS_CLI_DECODE_EVENT_H_
#define TRACEWIRE_TESTS_CLI_DECODE_EVENT_H_

#include <string>

namespace tracewire::cli_test {

// The EVENT lines of `trace` (every nesting, evt 3, as git writes them); fails the current
// test if the reader rejects the trace (the lines before the error are returned).
std::string DecodeEvent(const std::string& trace);

}  // namespace tracewire::cli_test

#endif  // TRACEWIRE_TESTS_CLI_DECODE_EVENT_H_
