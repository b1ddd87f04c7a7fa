// Tasks and gauges in OTLP: the thread-pool example (examples/threadpool) exported with
// `tracewire decode --format=otlp`, to a file and to an OTLP/HTTP receiver. Each task is a
// span (child of the process span), the outermost regions of the threads that worked for
// it are its children, and the gauges are OTLP Gauge metrics in ExportMetricsServiceRequest
// lines (POSTed to /v1/metrics); traces and metrics pass the official schema check.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli/cli_runner.h"
#include "tests/export/export_support.h"
#include "tests/export/otlp_support.h"

namespace tracewire::testing {
namespace {

using nlohmann::json;

constexpr int kRequests = 2000;
// Every request changes each of the three gauges twice (queue push and pop, in-flight
// up and down).
constexpr uint64_t kSamples = 6 * kRequests;

std::string RecordThreadPool(const std::string& name) {
  const std::string trace = TempDir(name) + "/trace.twr";
  EXPECT_EQ(RunTool({Tool("examples/threadpool/threadpool"), absl::StrCat(kRequests)},
                    {{"TRACEWIRE", trace}, {"TRACEWIRE_CATEGORIES", "-debug"}}),
            0);
  return trace;
}

// Checks the spans of the trace lines of `text`: one task span per request, parented to
// the process span, and the worker and writer regions children of task spans.
void CheckTaskSpans(const std::string& text) {
  std::set<std::string> task_ids;
  std::string process_span;
  std::vector<json> regions;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const json request = json::parse(line);
    if (!request.contains("resourceSpans")) continue;
    for (const json& rs : request["resourceSpans"]) {
      for (const json& ss : rs["scopeSpans"]) {
        for (const json& span : ss["spans"]) {
          const std::string name = span["name"];
          if (absl::StartsWith(name, "task(")) {
            EXPECT_EQ(name, "task(server,request)");
            EXPECT_EQ(OtlpAttribute(span["attributes"], "trace2.span.type")["stringValue"], "task");
            EXPECT_FALSE(OtlpAttribute(span["attributes"], "tracewire.task.id").is_null());
            task_ids.insert(span["spanId"].get<std::string>());
          } else if (name == "region(work,compute)" || name == "region(server,write)") {
            regions.push_back(span);
          } else if (name.find(':') != std::string::npos && !span.contains("parentSpanId")) {
            process_span = span["spanId"];
          }
        }
      }
    }
  }
  EXPECT_EQ(task_ids.size(), static_cast<size_t>(kRequests));
  ASSERT_EQ(regions.size(), 2u * kRequests);
  for (const json& region : regions) {
    ASSERT_TRUE(region.contains("parentSpanId")) << region.dump();
    EXPECT_TRUE(task_ids.count(region["parentSpanId"].get<std::string>())) << region.dump();
  }
}

TEST(OtlpTasksTest, TasksAreSpansAndGaugesAreMetrics) {
  const std::string trace = RecordThreadPool("otlp_tasks");
  const std::string out = TempDir("otlp_tasks_out") + "/trace.jsonl";
  const cli_test::CommandResult r =
      cli_test::RunCommand({Tool("tools/tracewire"), "decode", "--format=otlp", trace, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const SchemaCheck check = CheckOtlpSchema({out});
  EXPECT_TRUE(check.passed) << check.output;
  EXPECT_GE(check.metric_requests, 1u) << check.output;
  EXPECT_EQ(check.data_points, kSamples) << check.output;
  const std::string text = cli_test::ReadFile(out);
  CheckTaskSpans(text);
  // The metrics: one Gauge per gauge, named "<category>/<name>", with its unit.
  std::set<std::string> metrics;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const json request = json::parse(line);
    if (!request.contains("resourceMetrics")) continue;
    for (const json& metric : request["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]) {
      metrics.insert(absl::StrCat(metric["name"].get<std::string>(), " ",
                                  metric.value("unit", std::string())));
    }
  }
  EXPECT_EQ(metrics, (std::set<std::string>{"queue/work-depth items", "queue/write-depth items",
                                            "server/in-flight requests"}));
}

TEST(OtlpTasksTest, MetricsArePostedToV1Metrics) {
  const std::string trace = RecordThreadPool("otlp_tasks_post");
  OtlpReceiver receiver;
  const cli_test::CommandResult r = cli_test::RunCommand(
      {Tool("tools/tracewire"), "decode", "--otlp-endpoint=" + receiver.endpoint(), trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int traces = 0;
  int metrics = 0;
  for (const json& request : receiver.Requests()) {
    EXPECT_EQ(request["status"], 200);
    if (request["url"] == "/v1/traces") ++traces;
    if (request["url"] == "/v1/metrics") ++metrics;
  }
  EXPECT_GE(traces, 1);
  EXPECT_GE(metrics, 1);
  const SchemaCheck check = CheckOtlpSchema({receiver.bodies_path()});
  EXPECT_TRUE(check.passed) << check.output;
  EXPECT_EQ(check.data_points, kSamples) << check.output;
  CheckTaskSpans(cli_test::ReadFile(receiver.bodies_path()));
}

}  // namespace
}  // namespace tracewire::testing
