// Test support for the tests that run real git: a hermetic environment (no system or user
// config, no inherited Trace2 settings) and a small repository with a submodule and a
// pre-commit hook, built without tracing.
#ifndef TRACEWIRE_TESTS_CLI_GIT_SUPPORT_H_
#define TRACEWIRE_TESTS_CLI_GIT_SUPPORT_H_

#include <string>

#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {

// git with the identity and settings the tests need on its command line.
inline constexpr char kGit[] =
    "git -c user.name=Tracewire -c user.email=tw@example.com -c init.defaultBranch=main "
    "-c protocol.file.allow=always";

// True if `git --version` runs.
bool HasGit();

// Options for git commands run in `cwd` with HOME=`home`: hermetic (GIT_CONFIG_NOSYSTEM=1,
// LC_ALL=C) and without any GIT_TRACE2_* or GIT_* setting of the test's own environment
// (set the ones the test wants in `env` afterwards). The timeout bounds hangs only: a few
// git commands take well under a second on an idle machine, many seconds on a loaded one.
RunOptions HermeticGitOptions(const std::string& home, const std::string& cwd,
                              int timeout_seconds = 120);

// Creates <root>/sub (a repository with one commit) and <root>/repo (two commits, a large
// file `big`, `sub` as a submodule, an executable pre-commit hook that exits 0), untraced.
// Returns the setup's result (exit code 0 on success).
CommandResult MakeGitRepository(const std::string& root);

}  // namespace tracewire::cli_test

#endif  // TRACEWIRE_TESTS_CLI_GIT_SUPPORT_H_
