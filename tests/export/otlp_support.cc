#include "tests/export/otlp_support.h"

#include <signal.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/consumers/node_runner.h"
#include "tests/export/export_support.h"

namespace tracewire::testing {

using nlohmann::json;

std::vector<OtlpSpan> OtlpSpans(const std::string& text) {
  std::vector<OtlpSpan> spans;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const json request = json::parse(line.begin(), line.end(), nullptr, false);
    EXPECT_FALSE(request.is_discarded()) << line;
    if (request.is_discarded() || !request.contains("resourceSpans")) continue;
    for (const json& rs : request["resourceSpans"]) {
      for (const json& ss : rs["scopeSpans"]) {
        for (const json& span : ss["spans"]) {
          spans.push_back({span, rs["resource"]["attributes"], ss["scope"]});
        }
      }
    }
  }
  return spans;
}

json OtlpAttribute(const json& attributes, const std::string& key) {
  if (!attributes.is_array()) return nullptr;
  for (const json& a : attributes) {
    if (a.value("key", "") == key) return a["value"];
  }
  return nullptr;
}

SchemaCheck CheckOtlpSchema(const std::vector<std::string>& files) {
  SchemaCheck check;
  absl::StatusOr<cli_test::CommandResult> run =
      consumers::RunNodeScript("otlp_schema_check.mjs", files, 300);
  if (!run.ok()) {
    check.output = std::string(run.status().message());
    ADD_FAILURE() << check.output;
    return check;
  }
  check.output = run->out + run->err;
  check.passed = run->exit_code == 0;
  const std::vector<std::string> lines = absl::StrSplit(run->out, '\n', absl::SkipEmpty());
  if (!lines.empty()) {
    const json summary = json::parse(lines.back(), nullptr, false);
    if (summary.is_object()) {
      check.requests = summary.value("requests", 0);
      check.spans = summary.value("spans", 0);
      check.metric_requests = summary.value("metric_requests", 0);
      check.data_points = summary.value("data_points", 0);
    }
  }
  return check;
}

OtlpReceiver::OtlpReceiver(const std::string& script, int delay_ms, int lifetime_s) {
  absl::StatusOr<std::string> dir = consumers::ConsumersDir();
  if (!dir.ok()) {
    ADD_FAILURE() << dir.status();
    return;
  }
  const std::string tmp = TempDir("otlp_receiver");
  const std::string ready = tmp + "/ready";
  record_ = tmp + "/requests.jsonl";
  bodies_ = tmp + "/bodies.jsonl";
  pid_ = Spawn({"/usr/bin/env", "node", *dir + "/otlp_receiver.mjs", "--ready", ready, "--record",
                record_, "--bodies", bodies_, "--script", script, "--delay-ms",
                absl::StrCat(delay_ms), "--lifetime-s", absl::StrCat(lifetime_s)},
               {});
  // node starts in well under a second on an idle machine; the deadline bounds hangs only.
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    const std::string port(absl::StripAsciiWhitespace(cli_test::ReadFile(ready)));
    if (!port.empty()) {
      endpoint_ = absl::StrCat("http://127.0.0.1:", port);
      return;
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
  ADD_FAILURE() << "the OTLP receiver did not start";
}

OtlpReceiver::~OtlpReceiver() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  Wait(pid_);
}

std::vector<json> OtlpReceiver::Requests() const {
  std::vector<json> requests;
  for (const std::string& line : cli_test::Lines(cli_test::ReadFile(record_))) {
    const json request = json::parse(line, nullptr, false);
    if (!request.is_discarded()) requests.push_back(request);
  }
  return requests;
}

bool OtlpReceiver::WaitForRequests(size_t n, absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  while (Requests().size() < n) {
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return true;
}

void OtlpReceiver::Release() const { cli_test::WriteFile(record_ + ".release", ""); }

namespace {

// One EVENT line: the common keys, then `rest` (already JSON, starting with ',').
std::string Line(const std::string& event, const std::string& sid, const std::string& thread,
                 int64_t wall_us, const std::string& file, int line, const std::string& rest) {
  const absl::Time t = absl::FromUnixMicros(wall_us);
  return absl::StrCat("{\"event\":\"", event, "\",\"sid\":\"", sid, "\",\"thread\":\"", thread,
                      "\",\"time\":\"",
                      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone()),
                      "\",\"file\":\"", file, "\",\"line\":", line, rest, "}\n");
}

std::string Seconds(int64_t us) { return absl::StrFormat("%.6f", us / 1e6); }

}  // namespace

std::string SyntheticGitEventStream(const std::string& sid, int regions) {
  const int64_t origin = 1795000000000000;  // Unix µs of the process start
  int64_t now = 10;                         // µs since the start
  std::string out;
  auto at = [&](int64_t us) { return origin + us + 3; };  // "time" is read a bit later
  out += Line("version", sid, "main", at(now), "common-main.c", 39,
              ",\"evt\":\"3\",\"exe\":\"2.39.5\"");
  now += 5;
  out += Line("start", sid, "main", at(now), "common-main.c", 40,
              absl::StrCat(",\"t_abs\":", Seconds(now), ",\"argv\":[\"git\",\"big\"]"));
  now += 5;
  out += Line("cmd_name", sid, "main", at(now), "git.c", 464,
              ",\"name\":\"big\",\"hierarchy\":\"big\"");
  for (int i = 0; i < regions; ++i) {
    const int64_t outer = now += 3;
    out += Line("region_enter", sid, "main", at(now), "big.c", 10,
                ",\"repo\":1,\"nesting\":1,\"category\":\"big\",\"label\":\"outer\"");
    const int64_t inner = now += 2;
    out += Line("region_enter", sid, "main", at(now), "big.c", 20,
                ",\"repo\":1,\"nesting\":2,\"category\":\"big\",\"label\":\"inner\"");
    now += 2;
    out += Line(
        "data", sid, "main", at(now), "big.c", 30,
        absl::StrCat(",\"repo\":1,\"t_abs\":", Seconds(now), ",\"t_rel\":", Seconds(now - inner),
                     ",\"nesting\":3,\"category\":\"big\",\"key\":\"i\",\"value\":\"", i, "\""));
    now += 2;
    out += Line("region_leave", sid, "main", at(now), "big.c", 21,
                absl::StrCat(",\"repo\":1,\"t_rel\":", Seconds(now - inner),
                             ",\"nesting\":2,\"category\":\"big\",\"label\":\"inner\""));
    now += 2;
    out += Line("region_leave", sid, "main", at(now), "big.c", 11,
                absl::StrCat(",\"repo\":1,\"t_rel\":", Seconds(now - outer),
                             ",\"nesting\":1,\"category\":\"big\",\"label\":\"outer\""));
  }
  const int64_t thread_start = now += 5;
  out += Line("thread_start", sid, "th01:worker", at(now), "big.c", 50, "");
  for (int i = 0; i < 10; ++i) {
    const int64_t enter = now += 3;
    out += Line("region_enter", sid, "th01:worker", at(now), "big.c", 55,
                ",\"nesting\":1,\"category\":\"work\",\"label\":\"slice\"");
    now += 3;
    out += Line("region_leave", sid, "th01:worker", at(now), "big.c", 56,
                absl::StrCat(",\"t_rel\":", Seconds(now - enter),
                             ",\"nesting\":1,\"category\":\"work\",\"label\":\"slice\""));
  }
  now += 3;
  out += Line("thread_exit", sid, "th01:worker", at(now), "big.c", 60,
              absl::StrCat(",\"t_rel\":", Seconds(now - thread_start)));
  const int64_t child = now += 5;
  out += Line("child_start", sid, "main", at(now), "run-command.c", 737,
              ",\"child_id\":0,\"child_class\":\"?\",\"use_shell\":false,\"argv\":[\"false\"]");
  now += 100;
  out += Line(
      "child_exit", sid, "main", at(now), "run-command.c", 998,
      absl::StrCat(",\"child_id\":0,\"pid\":4242,\"code\":3,\"t_rel\":", Seconds(now - child)));
  now += 5;
  out += Line("exit", sid, "main", at(now), "git.c", 721,
              absl::StrCat(",\"t_abs\":", Seconds(now), ",\"code\":0"));
  now += 2;
  out += Line("atexit", sid, "main", at(now), "trace2/tr2_tgt_event.c", 204,
              absl::StrCat(",\"t_abs\":", Seconds(now), ",\"code\":0"));
  return out;
}

}  // namespace tracewire::testing
