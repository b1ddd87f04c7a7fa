#include "tests/cli/git_support.h"

#include "absl/strings/str_cat.h"

namespace tracewire::cli_test {

bool HasGit() { return RunCommand({"git", "--version"}).exit_code == 0; }

RunOptions HermeticGitOptions(const std::string& home, const std::string& cwd,
                              int timeout_seconds) {
  RunOptions options;
  options.cwd = cwd;
  options.timeout_seconds = timeout_seconds;
  options.env = {{"HOME", home}, {"GIT_CONFIG_NOSYSTEM", "1"}, {"LC_ALL", "C"}, {"LANG", "C"}};
  for (const char* name : {"GIT_TRACE2_EVENT",
                           "GIT_TRACE2_PERF",
                           "GIT_TRACE2",
                           "GIT_TRACE2_EVENT_NESTING",
                           "GIT_TRACE2_BRIEF",
                           "GIT_TRACE2_PERF_BRIEF",
                           "GIT_TRACE2_EVENT_BRIEF",
                           "GIT_TRACE2_PARENT_SID",
                           "GIT_TRACE2_PARENT_NAME",
                           "GIT_TRACE2_CONFIG_PARAMS",
                           "GIT_TRACE2_ENV_VARS",
                           "GIT_TRACE2_MAX_FILES",
                           "GIT_TRACE2_DST_DEBUG",
                           "GIT_TRACE2_REDACT",
                           "GIT_DIR",
                           "GIT_WORK_TREE",
                           "GIT_PAGER",
                           "PAGER",
                           "GIT_CONFIG_PARAMETERS",
                           "GIT_CONFIG_COUNT",
                           "XDG_CONFIG_HOME"}) {
    // (Variables also in `env` are removed from the inherited environment and set.)
    options.unset_env.push_back(name);
  }
  return options;
}

CommandResult MakeGitRepository(const std::string& root) {
  const std::string setup = absl::StrCat(
      "set -e; G='", kGit,
      "'; $G init -q sub; (cd sub && echo s > s && $G add s && $G commit -qm s); "
      "$G init -q repo; cd repo; echo a > a; "
      "i=0; while [ $i -lt 4000 ]; do echo \"line $i of a large file\"; i=$((i+1)); done "
      "> big; $G add a big; $G commit -qm one; $G submodule add -q ../sub sub; "
      "$G commit -qm submodule; printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-commit; "
      "chmod +x .git/hooks/pre-commit");
  return Shell(setup, HermeticGitOptions(root, root));
}

}  // namespace tracewire::cli_test
