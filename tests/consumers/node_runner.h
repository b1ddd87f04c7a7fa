// Test support: runs Node.js scripts of tests/consumers/ against the pinned consumer
// packages (DevTools trace engine, speedscope, OpenTelemetry schema) that `npm ci`
// installed into tests/consumers/node_modules.
#ifndef TRACEWIRE_TESTS_CONSUMERS_NODE_RUNNER_H_
#define TRACEWIRE_TESTS_CONSUMERS_NODE_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::consumers {

// The source directory tests/consumers (found through the runfiles' package.json link),
// after checking that `node` runs and that node_modules holds the locked packages.
// Otherwise an error that says what is missing and how to install it (never a skip).
absl::StatusOr<std::string> ConsumersDir();

// Runs `node SCRIPT ARGS...` where SCRIPT is a file name in tests/consumers, with the
// given timeout; the script's stdout/stderr and exit code come back. Fails (status) only
// if the toolchain is missing.
absl::StatusOr<cli_test::CommandResult> RunNodeScript(const std::string& script,
                                                      const std::vector<std::string>& args,
                                                      int timeout_seconds = 300);

}  // namespace tracewire::consumers

#endif  // TRACEWIRE_TESTS_CONSUMERS_NODE_RUNNER_H_
