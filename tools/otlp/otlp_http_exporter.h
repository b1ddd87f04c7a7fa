// OtlpHttpExporter: sends OTLP/JSON ExportTraceServiceRequests to an OpenTelemetry
// Collector (or any OTLP/HTTP receiver) with libcurl, following the OTLP/HTTP rules:
//   * POST <endpoint>/v1/traces, Content-Type: application/json, plus the configured headers
//     (for authentication); the endpoint is the base URL as OTEL_EXPORTER_OTLP_ENDPOINT
//     spells it (http://host:4318 or https://host/prefix);
//   * 2xx is success; a body with "partialSuccess" reports spans the receiver rejected;
//   * 429, 502, 503 and 504, and failures to connect, send or receive, are retried: after
//     the Retry-After the response asks for (delta-seconds or an HTTP date), else after an
//     exponential backoff with jitter (initial_backoff, doubling, at most max_backoff); one
//     request never spends more than `retry_time` in attempts and waits together;
//   * every other status is final (the message of the google.rpc.Status body is reported).
//
//   OtlpHttpOptions options;
//   options.endpoint = "http://localhost:4318";
//   auto exporter = OtlpHttpExporter::Create(options);
//   ExportResult r = (*exporter)->Export(request_json, /*retry=*/true);
//   if (!r.status.ok()) { /* not delivered: r.status says why, r.attempts how often */ }
//
// One exporter is used by one thread at a time; Cancel() may be called from any thread.
#ifndef TRACEWIRE_TOOLS_OTLP_OTLP_HTTP_EXPORTER_H_
#define TRACEWIRE_TOOLS_OTLP_OTLP_HTTP_EXPORTER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tracewire::tools {

struct CurlLibrary;

struct OtlpHttpOptions {
  // Base URL, http:// or https://; "/v1/traces" (or "/v1/metrics") is appended.
  std::string endpoint;
  // Extra request headers (name, value), e.g. {"Authorization", "Bearer …"}.
  std::vector<std::pair<std::string, std::string>> headers;
  // Time limit of one attempt (connecting, sending, waiting for the response).
  absl::Duration timeout = absl::Seconds(10);
  // Time limit of one request, all attempts and waits included.
  absl::Duration retry_time = absl::Seconds(60);
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(30);
};

// Parses "K=V" (as --otlp-header spells it) into a header; InvalidArgument if there is no
// '=', the name is empty or not an HTTP token, or the value holds CR or LF.
absl::StatusOr<std::pair<std::string, std::string>> ParseOtlpHeader(absl::string_view spec);

// The outcome of one Export call.
struct ExportResult {
  // OK: the receiver accepted the request (perhaps only partly: see rejected_spans).
  // Otherwise why it was not delivered: Unavailable (retryable failures until the time
  // ran out, or one attempt without retry), Cancelled, or the receiver's final refusal
  // (InvalidArgument for 400, PermissionDenied for 401/403, … with its message).
  absl::Status status;
  int attempts = 0;
  // Spans the receiver rejected in a partial success, and its message.
  int64_t rejected_spans = 0;
  std::string rejection_message;
};

class OtlpHttpExporter {
 public:
  // Checks the options (an http:// or https:// endpoint, headers) and sets up libcurl,
  // which is loaded at the first call: FailedPrecondition naming libcurl and its Debian
  // package if it cannot be loaded.
  static absl::StatusOr<std::unique_ptr<OtlpHttpExporter>> Create(const OtlpHttpOptions& options);
  ~OtlpHttpExporter();
  OtlpHttpExporter(const OtlpHttpExporter&) = delete;
  OtlpHttpExporter& operator=(const OtlpHttpExporter&) = delete;

  // Sends one ExportTraceServiceRequest (OTLP/JSON) to <endpoint>/v1/traces, or with
  // `metrics` one ExportMetricsServiceRequest to <endpoint>/v1/metrics. With `retry`,
  // retryable failures are retried within options.retry_time; without, one attempt is made.
  ExportResult Export(absl::string_view request_json, bool retry, bool metrics = false);

  // Makes the current and every later Export return Cancelled at once (a transfer in
  // progress is aborted, a wait ends). Thread-safe.
  void Cancel();

  // The URL requests go to (traces), and the one metrics go to.
  const std::string& url() const { return url_; }
  const std::string& metrics_url() const { return metrics_url_; }

 private:
  struct Attempt;
  OtlpHttpExporter(const OtlpHttpOptions& options, const CurlLibrary& curl_lib);
  Attempt Post(absl::string_view body, const std::string& url);
  // Sleeps for `d` unless cancelled first; false if cancelled.
  bool Sleep(absl::Duration d);

  OtlpHttpOptions options_;
  std::string url_;
  std::string metrics_url_;
  const CurlLibrary& curl_lib_;  // the process's libcurl (never unloaded)
  void* curl_ = nullptr;         // CURL*
  void* header_list_ = nullptr;  // curl_slist*
  std::atomic<bool> cancelled_{false};
  absl::Mutex mu_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_OTLP_OTLP_HTTP_EXPORTER_H_
