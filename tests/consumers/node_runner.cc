#include "tests/consumers/node_runner.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tracewire::consumers {
namespace {

constexpr char kInstallHint[] =
    "the test-only Node.js toolchain is missing; tests/run_all.sh installs it (Debian nodejs + "
    "npm, then `npm ci --ignore-scripts --prefix tests/consumers`)";

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

absl::StatusOr<std::string> ConsumersDir() {
  const std::string link = cli_test::Runfile("tests/consumers/package.json");
  char resolved[PATH_MAX];
  if (realpath(link.c_str(), resolved) == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot resolve ", link));
  }
  std::string dir(resolved);
  dir.resize(dir.rfind('/'));
  const cli_test::CommandResult node = cli_test::RunCommand({"node", "--version"});
  if (node.exit_code != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("`node --version` failed (exit ", node.exit_code, "): ", kInstallHint));
  }
  for (const char* package :
       {"@paulirish/trace_engine", "speedscope", "@opentelemetry/otlp-transformer"}) {
    const std::string path = absl::StrCat(dir, "/node_modules/", package);
    if (!IsDirectory(path)) {
      return absl::FailedPreconditionError(absl::StrCat(path, " is missing: ", kInstallHint));
    }
  }
  return dir;
}

absl::StatusOr<cli_test::CommandResult> RunNodeScript(const std::string& script,
                                                      const std::vector<std::string>& args,
                                                      int timeout_seconds) {
  absl::StatusOr<std::string> dir = ConsumersDir();
  if (!dir.ok()) return dir.status();
  std::vector<std::string> argv = {"node", absl::StrCat(*dir, "/", script)};
  argv.insert(argv.end(), args.begin(), args.end());
  cli_test::RunOptions options;
  options.timeout_seconds = timeout_seconds;
  return cli_test::RunCommand(argv, options);
}

}  // namespace tracewire::consumers
