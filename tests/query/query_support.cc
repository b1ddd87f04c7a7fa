#include "tests/query/query_support.h"

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace tracewire::query_test {

using cli_test::CommandResult;

CommandResult Query(const std::vector<std::string>& args, const cli_test::RunOptions& options) {
  std::vector<std::string> argv = {cli_test::Tracewire(), "query", "--format=tsv"};
  argv.insert(argv.end(), args.begin(), args.end());
  return cli_test::RunCommand(argv, options);
}

Rows ParseTsv(const std::string& text) {
  Rows rows;
  for (const std::string& line : cli_test::Lines(text)) {
    rows.push_back(absl::StrSplit(line, '\t'));
  }
  return rows;
}

Rows Select(const std::vector<std::string>& inputs, const std::string& sql) {
  std::vector<std::string> args = inputs;
  args.insert(args.end(), {"-c", sql});
  const CommandResult r = Query(args);
  EXPECT_EQ(r.exit_code, 0) << sql << "\n" << r.err;
  if (r.exit_code != 0) return {};
  Rows rows = ParseTsv(r.out);
  if (!rows.empty()) rows.erase(rows.begin());
  return rows;
}

std::string DemoTraceDir(const std::string& name) {
  const std::string dir = cli_test::NewTempDir(name);
  // The demo ends with exit code 1 on purpose.
  const CommandResult demo = cli_test::RunCommand({cli_test::Runfile("examples/demo/demo")},
                                                  {.env = {{"TRACEWIRE", dir}}});
  EXPECT_EQ(demo.exit_code, 1) << demo.err;
  return dir;
}

}  // namespace tracewire::query_test
