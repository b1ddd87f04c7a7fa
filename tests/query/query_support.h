// Test support for the `tracewire query` tests: running the command and reading its
// tab-separated results.
#ifndef TRACEWIRE_TESTS_QUERY_QUERY_SUPPORT_H_
#define TRACEWIRE_TESTS_QUERY_QUERY_SUPPORT_H_

#include <string>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace tracewire::query_test {

// A result as rows of fields (header first).
using Rows = std::vector<std::vector<std::string>>;

// Runs `tracewire query --format=tsv` with `args` (inputs and flags).
cli_test::CommandResult Query(const std::vector<std::string>& args,
                              const cli_test::RunOptions& options = {});

// The rows of one tab-separated result (header first).
Rows ParseTsv(const std::string& text);

// Runs the single statement `sql` on `inputs` and returns its rows without the header;
// fails the test (and returns nothing) if the command fails.
Rows Select(const std::vector<std::string>& inputs, const std::string& sql);

// The trace of //examples/demo (two processes) written into a new directory `name`.
std::string DemoTraceDir(const std::string& name);

}  // namespace tracewire::query_test

#endif  // TRACEWIRE_TESTS_QUERY_QUERY_SUPPORT_H_
