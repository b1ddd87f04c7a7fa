// `tracewire decode --otlp-endpoint`: OTLP/HTTP export to a scripted receiver on 127.0.0.1
// (tests/consumers/otlp_receiver.mjs) that records every request. What arrives passes the
// official schema and holds every span; 503 and 429 are retried (after Retry-After, or a
// backoff); a receiver that is down, hangs, refuses or rejects makes the command report
// what was not delivered and exit 3, within its time limits.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/export/export_support.h"
#include "tests/export/otlp_support.h"

namespace tracewire::testing {
namespace {

using cli_test::CommandResult;
using nlohmann::json;

constexpr int kExitNotDelivered = 3;
// Region pairs of the large trace: 12013 spans, more than one request holds.
constexpr int kLargeRegions = 6000;

std::string Tracewire() { return Tool("tools/tracewire"); }

// Runs tracewire without proxies in the way of 127.0.0.1.
CommandResult Tw(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Tracewire()};
  argv.insert(argv.end(), args.begin(), args.end());
  cli_test::RunOptions options;
  options.unset_env = {"http_proxy",  "https_proxy", "HTTP_PROXY",
                       "HTTPS_PROXY", "all_proxy",   "ALL_PROXY"};
  options.timeout_seconds = 120;
  return cli_test::RunCommand(argv, options);
}

const DemoAndTreeTraces& Traces() {
  static const DemoAndTreeTraces* traces = new DemoAndTreeTraces(RecordDemoAndTree("otlp_http"));
  return *traces;
}

// Spans of `decode --format=otlp` written to a file, for comparison.
size_t SpansInFile(const std::string& trace) {
  const CommandResult r = Tw({"decode", "--format=otlp", trace});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return OtlpSpans(r.out).size();
}

// A large imported trace (its spans fill several requests).
std::string LargeTrace() {
  static const std::string* path = [] {
    const std::string dir = TempDir("otlp_http_large");
    EXPECT_TRUE(cli_test::WriteFile(
        dir + "/big.event",
        SyntheticGitEventStream("20261122T020000.100000Z-H0a7c9cdf-P00002000", kLargeRegions)));
    const CommandResult r =
        Tw({"import", "--from=trace2-event", dir + "/big.event", "-o", dir + "/big.twr"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return new std::string(dir + "/big.twr");
  }();
  return *path;
}

TEST(OtlpHttpTest, DecodeSendsEveryProcessWithHeaders) {
  OtlpReceiver receiver;
  ASSERT_FALSE(receiver.endpoint().empty());
  const std::string out = TempDir("otlp_http_copy") + "/copy.jsonl";
  const CommandResult r = Tw({"decode", Traces().tree_dir, "--otlp-endpoint=" + receiver.endpoint(),
                              "--otlp-header=Authorization=Bearer s3cret", "--otlp-header",
                              "X-Scope-OrgID = a,b", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");  // -o takes the copy
  const std::vector<json> requests = receiver.Requests();
  ASSERT_EQ(requests.size(), 1u);  // three processes, batched into one request
  EXPECT_EQ(requests[0]["method"], "POST");
  EXPECT_EQ(requests[0]["url"], "/v1/traces");
  EXPECT_EQ(requests[0]["headers"]["content-type"], "application/json");
  EXPECT_EQ(requests[0]["headers"]["authorization"], "Bearer s3cret");
  EXPECT_EQ(requests[0]["headers"]["x-scope-orgid"], "a,b");
  EXPECT_EQ(requests[0]["status"], 200);

  const SchemaCheck check = CheckOtlpSchema({receiver.bodies_path()});
  EXPECT_TRUE(check.passed) << check.output;
  EXPECT_EQ(check.spans, SpansInFile(Traces().tree_dir));
  EXPECT_EQ(OtlpSpans(ReadWholeFile(out)).size(), check.spans);  // the -o copy
}

TEST(OtlpHttpTest, LargeTraceInSeveralRequests) {
  OtlpReceiver receiver;
  const CommandResult r =
      Tw({"decode", "--format=otlp", LargeTrace(), "--otlp-endpoint=" + receiver.endpoint()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(receiver.Requests().size(), 2u);
  // Every span arrived (the schema itself is checked on the smaller exports).
  EXPECT_EQ(OtlpSpans(ReadWholeFile(receiver.bodies_path())).size(), 2u * kLargeRegions + 13);
}

TEST(OtlpHttpTest, RetriesAfter503WithRetryAfterAnd429WithBackoff) {
  OtlpReceiver receiver("503:1,429,503:2");
  const CommandResult r =
      Tw({"decode", Traces().demo_dir, "--otlp-endpoint=" + receiver.endpoint()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<json> requests = receiver.Requests();
  ASSERT_EQ(requests.size(), 4u);
  for (const json& request : requests) EXPECT_EQ(request["bytes"], requests[0]["bytes"]);
  EXPECT_EQ(requests[3]["status"], 200);
  // The waits: Retry-After 1 s; a backoff of 1 s ± 50 %; Retry-After 2 s (lower bounds only).
  const auto gap = [&](int i) {
    return requests[i + 1]["t_ms"].get<int64_t>() - requests[i]["t_ms"].get<int64_t>();
  };
  EXPECT_GE(gap(0), 950);
  EXPECT_GE(gap(1), 450);
  EXPECT_GE(gap(2), 1950);
  EXPECT_TRUE(CheckOtlpSchema({receiver.bodies_path()}).passed);
}

TEST(OtlpHttpTest, ReceiverDownReportsWhatWasNotDelivered) {
  const std::string endpoint = absl::StrCat("http://127.0.0.1:", cli_test::UnusedLoopbackPort());
  const absl::Time start = absl::Now();
  const CommandResult r = Tw({"decode", "--format=otlp", LargeTrace(),
                              "--otlp-endpoint=" + endpoint, "--otlp-retry-time=3s"});
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(r.exit_code, kExitNotDelivered) << r.err;
  EXPECT_TRUE(absl::StrContains(
      r.err, absl::StrCat("not delivered to ", endpoint, "/v1/traces: ", 2 * kLargeRegions + 13,
                          " of ", 2 * kLargeRegions + 13, " spans")))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "Couldn't connect")) << r.err;
  // One retry time for the first request, one attempt for each later one: far from the
  // 3 s per request a retry for each would take. (An upper bound against hangs only.)
  EXPECT_LT(took, absl::Seconds(60));
}

TEST(OtlpHttpTest, HangingReceiverTimesOut) {
  OtlpReceiver receiver("hang,hang,hang,hang,hang,hang,hang,hang");
  const CommandResult r = Tw({"decode", Traces().demo_dir, "--otlp-endpoint=" + receiver.endpoint(),
                              "--otlp-timeout=1s", "--otlp-retry-time=5s"});
  EXPECT_EQ(r.exit_code, kExitNotDelivered) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "Operation timed out")) << r.err;
  EXPECT_GE(receiver.Requests().size(), 2u);  // retried after the first timeout
}

TEST(OtlpHttpTest, RefusalIsFinalAndPartialRejectionIsReported) {
  {
    OtlpReceiver receiver("400");
    const CommandResult r =
        Tw({"decode", Traces().demo_dir, "--otlp-endpoint=" + receiver.endpoint()});
    EXPECT_EQ(r.exit_code, kExitNotDelivered) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "HTTP 400: scripted 400 from the test receiver")) << r.err;
    EXPECT_EQ(receiver.Requests().size(), 1u);  // not retried
  }
  {
    OtlpReceiver receiver("partial:2");
    const CommandResult r =
        Tw({"decode", Traces().demo_dir, "--otlp-endpoint=" + receiver.endpoint()});
    EXPECT_EQ(r.exit_code, kExitNotDelivered) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "rejected 2 of ")) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "test rejection")) << r.err;
  }
}

TEST(OtlpHttpTest, UsageErrors) {
  const std::string trace = Traces().demo_file;
  EXPECT_EQ(Tw({"decode", trace, "--otlp-endpoint=ftp://127.0.0.1:1"}).exit_code, 2);
  EXPECT_EQ(Tw({"decode", trace, "--otlp-endpoint=http://127.0.0.1:1", "--otlp-header=NoEquals"})
                .exit_code,
            2);
  EXPECT_EQ(
      Tw({"decode", trace, "--format=chrome", "--otlp-endpoint=http://127.0.0.1:1"}).exit_code, 2);
  EXPECT_EQ(Tw({"decode", trace, "--otlp-header=A=b"}).exit_code, 2);  // no endpoint
  EXPECT_EQ(
      Tw({"decode", trace, "--otlp-endpoint=http://127.0.0.1:1", "--otlp-timeout=0s"}).exit_code,
      2);
}

}  // namespace
}  // namespace tracewire::testing
