// OtlpSender: sends the OTLP formatter's output (JSON lines, each an
// ExportTraceServiceRequest, or an ExportMetricsServiceRequest of gauge samples, which goes
// alone to /v1/metrics) over OTLP/HTTP in requests of up to max_request_bytes (the
// resourceSpans of consecutive lines are merged into one request; a larger line goes alone)
// and counts what was delivered and what was not.
//
// After a request failed although it was retried for the exporter's retry time, the next
// requests get one attempt each until one is accepted: a receiver that is down costs one
// retry time in all, not one per request, and every request still gets its chance.
#ifndef TRACEWIRE_TOOLS_OTLP_OTLP_SENDER_H_
#define TRACEWIRE_TOOLS_OTLP_OTLP_SENDER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "tools/otlp/otlp_http_exporter.h"

namespace tracewire::tools {

// What a sender delivered and what it did not.
struct OtlpTotals {
  uint64_t requests = 0;         // requests the receiver accepted
  uint64_t spans = 0;            // spans in them (rejected ones included)
  uint64_t failed_requests = 0;  // requests not delivered
  uint64_t failed_spans = 0;     // spans in them
  uint64_t rejected_spans = 0;   // spans the receiver rejected in a partial success
  uint64_t metric_requests = 0;  // metrics requests (gauge samples) the receiver accepted

  // True if every span was delivered and accepted.
  bool complete() const { return failed_requests == 0 && rejected_spans == 0; }
  OtlpTotals& operator+=(const OtlpTotals& other);
};

// Number of spans in OTLP/JSON text (the "spanId" members: exact for the formatter's output,
// whose string values cannot hold an unescaped quote).
uint64_t CountOtlpSpans(absl::string_view json);

class OtlpSender {
 public:
  // `log` receives one line (no newline) per request that was not delivered or partly
  // rejected. `exporter` must outlive the sender.
  OtlpSender(OtlpHttpExporter& exporter, std::function<void(const std::string&)> log,
             size_t max_request_bytes = size_t{4} << 20);

  // Adds complete lines of OTLP/JSON; sends a request whenever the batch is full.
  void Add(absl::string_view lines);
  // Sends what is batched.
  void Flush();

  const OtlpTotals& totals() const { return totals_; }

 private:
  void Send(absl::string_view request, uint64_t spans);
  // Sends one ExportMetricsServiceRequest line to the metrics URL.
  void SendMetrics(absl::string_view request);

  OtlpHttpExporter& exporter_;
  std::function<void(const std::string&)> log_;
  size_t max_request_bytes_;
  std::string batch_;  // comma-separated ResourceSpans objects
  uint64_t batch_spans_ = 0;
  bool receiver_failing_ = false;  // the last request failed after its retries
  OtlpTotals totals_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_OTLP_OTLP_SENDER_H_
