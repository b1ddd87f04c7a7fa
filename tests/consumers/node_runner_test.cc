// The consumer toolchain is present and the locked packages load in Node.
#include "tests/consumers/node_runner.h"

#include "gtest/gtest.h"

namespace tracewire::consumers {
namespace {

TEST(NodeRunnerTest, LockedPackagesLoad) {
  absl::StatusOr<cli_test::CommandResult> result = RunNodeScript("check_toolchain.mjs", {});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exit_code, 0) << result->out << result->err;
  EXPECT_NE(result->out.find("@paulirish/trace_engine 0.0.65"), std::string::npos) << result->out;
  EXPECT_NE(result->out.find("speedscope 1.25.0"), std::string::npos) << result->out;
  EXPECT_NE(result->out.find("@opentelemetry/otlp-transformer 0.52.1"), std::string::npos)
      << result->out;
}

}  // namespace
}  // namespace tracewire::consumers
