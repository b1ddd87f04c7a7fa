// The shared libraries the `tracewire` command loads (seen through the dynamic loader's
// LD_DEBUG=libs log): `help` and `validate` load none of libcurl, elfutils, OpenSSL, zstd
// or Abseil; libdw is loaded when stack frames are symbolized and libcurl when a command
// exports over HTTP, and both features still work.
#include <unistd.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"

namespace tracewire::cli_test {
namespace {

using ::testing::HasSubstr;

// What must not be loaded at start-up (prefixes of the libraries' file names).
constexpr const char* kLazyLibraries[] = {"libcurl",   "libdw",   "libelf", "libssl",
                                          "libcrypto", "libzstd", "libabsl"};

// A command's result and the base names of the shared libraries it loaded.
struct Traced {
  CommandResult result;
  std::set<std::string> libraries;
};

// Runs tracewire `args` with LD_DEBUG=libs written to a file, and collects the libraries
// the loader looked for ("find library=NAME") or initialised ("calling init: PATH").
Traced RunWithLoaderLog(const std::vector<std::string>& args, RunOptions options = {}) {
  static int runs = 0;
  const std::string log = absl::StrCat(NewTempDir(absl::StrCat("ld_debug", ++runs)), "/log");
  options.env.push_back({"LD_DEBUG", "libs"});
  options.env.push_back({"LD_DEBUG_OUTPUT", log});
  std::vector<std::string> argv = {Tracewire()};
  argv.insert(argv.end(), args.begin(), args.end());
  Traced traced;
  traced.result = RunCommand(argv, options);
  // The loader appends ".PID" to LD_DEBUG_OUTPUT.
  const CommandResult files = Shell(absl::StrCat("cat '", log, "'.*"));
  const std::regex find(R"(find library=([^ \[]+))");
  const std::regex init(R"(calling init: (\S+))");
  for (const std::string& line : Lines(files.out)) {
    std::smatch m;
    std::string name;
    if (std::regex_search(line, m, find) || std::regex_search(line, m, init)) name = m[1];
    if (name.empty()) continue;
    traced.libraries.insert(name.substr(name.rfind('/') + 1));
  }
  return traced;
}

bool Loaded(const Traced& traced, const std::string& prefix) {
  for (const std::string& name : traced.libraries) {
    if (absl::StartsWith(name, prefix)) return true;
  }
  return false;
}

void ExpectOnlyBaseLibraries(const Traced& traced) {
  const std::string seen = absl::StrJoin(traced.libraries, " ");
  // The log was read: the C library is always there.
  EXPECT_TRUE(Loaded(traced, "libc.so")) << seen;
  for (const char* prefix : kLazyLibraries) {
    EXPECT_FALSE(Loaded(traced, prefix)) << prefix << " loaded: " << seen;
  }
}

// A small trace: the git EVENT stream of tests/cli/testdata imported.
std::string SmallTrace() {
  const std::string trace = NewTempDir("small") + "/git.twr";
  const CommandResult r =
      RunCommand({Tracewire(), "import", "--from=trace2-event",
                  Runfile("tests/cli/testdata/git_event_stream.json"), "-o", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return trace;
}

TEST(StartupLibrariesTest, HelpLoadsNoneOfTheLazyLibraries) {
  const Traced help = RunWithLoaderLog({"help"});
  EXPECT_EQ(help.result.exit_code, 0) << help.result.err;
  EXPECT_THAT(help.result.out, HasSubstr("validate"));
  ExpectOnlyBaseLibraries(help);
}

TEST(StartupLibrariesTest, ValidateLoadsNoneOfTheLazyLibraries) {
  const Traced validate = RunWithLoaderLog({"validate", SmallTrace()});
  EXPECT_EQ(validate.result.exit_code, 0) << validate.result.err;
  EXPECT_THAT(validate.result.out, HasSubstr(": valid: "));
  ExpectOnlyBaseLibraries(validate);
}

// Symbolizing loads libdw (and libelf through it) and still names static functions;
// validating a trace with stacks symbolizes nothing and loads neither.
TEST(StartupLibrariesTest, SymbolizingLoadsLibdw) {
  const std::string trace = NewTempDir("stacks") + "/stacks.twr";
  const CommandResult ran =
      RunCommand({Runfile("tests/testtool/testtool"), "trace2", "stacks", "3"},
                 {.env = {{"TRACEWIRE", trace}, {"TRACEWIRE_STACKS", "region_enter"}}});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const Traced validate = RunWithLoaderLog({"validate", trace});
  EXPECT_EQ(validate.result.exit_code, 0) << validate.result.err;
  ExpectOnlyBaseLibraries(validate);

  const Traced dump = RunWithLoaderLog({"dump", trace});
  ASSERT_EQ(dump.result.exit_code, 0) << dump.result.err;
  EXPECT_THAT(dump.result.out, HasSubstr("(stacks of generation 1, symbolized)\n    stack 1:\n"
                                         "      #0  (anonymous namespace)::StackLeaf(int) ["));
  const std::string seen = absl::StrJoin(dump.libraries, " ");
  EXPECT_TRUE(Loaded(dump, "libdw.so")) << seen;
  EXPECT_TRUE(Loaded(dump, "libelf.so")) << seen;
  // libdw's own dependencies (libdebuginfod brings libcurl-gnutls), not the exporter's.
  EXPECT_FALSE(Loaded(dump, "libcurl.so")) << seen;

  const Traced decode = RunWithLoaderLog({"decode", "--stacks", trace});
  ASSERT_EQ(decode.result.exit_code, 0) << decode.result.err;
  EXPECT_THAT(decode.result.out, HasSubstr("\"func\":\"(anonymous namespace)::StackLeaf(int)\""));
  EXPECT_TRUE(Loaded(decode, "libdw.so")) << absl::StrJoin(decode.libraries, " ");
}

// Exporting over HTTP loads libcurl, which then really tries to connect.
TEST(StartupLibrariesTest, HttpExportLoadsLibcurl) {
  const std::string endpoint = absl::StrCat("http://127.0.0.1:", UnusedLoopbackPort());
  RunOptions options;
  options.unset_env = {"http_proxy",  "https_proxy", "HTTP_PROXY",
                       "HTTPS_PROXY", "all_proxy",   "ALL_PROXY"};
  const Traced exported = RunWithLoaderLog({"decode", "--format=otlp", SmallTrace(),
                                            "--otlp-endpoint=" + endpoint, "--otlp-retry-time=0s"},
                                           options);
  EXPECT_EQ(exported.result.exit_code, 3) << exported.result.err;  // not delivered
  EXPECT_THAT(exported.result.err, HasSubstr("Couldn't connect"));
  const std::string seen = absl::StrJoin(exported.libraries, " ");
  EXPECT_TRUE(Loaded(exported, "libcurl.so")) << seen;
  EXPECT_FALSE(Loaded(exported, "libdw")) << seen;
}

}  // namespace
}  // namespace tracewire::cli_test
