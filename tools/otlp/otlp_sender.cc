#include "tools/otlp/otlp_sender.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tracewire::tools {
namespace {

constexpr absl::string_view kRequestPrefix = "{\"resourceSpans\":[";
constexpr absl::string_view kRequestSuffix = "]}";
constexpr absl::string_view kMetricsPrefix = "{\"resourceMetrics\":[";

}  // namespace

OtlpTotals& OtlpTotals::operator+=(const OtlpTotals& other) {
  requests += other.requests;
  spans += other.spans;
  failed_requests += other.failed_requests;
  failed_spans += other.failed_spans;
  rejected_spans += other.rejected_spans;
  metric_requests += other.metric_requests;
  return *this;
}

uint64_t CountOtlpSpans(absl::string_view json) {
  constexpr absl::string_view kSpanId = "\"spanId\":\"";
  uint64_t count = 0;
  for (size_t pos = json.find(kSpanId); pos != absl::string_view::npos;
       pos = json.find(kSpanId, pos + kSpanId.size())) {
    ++count;
  }
  return count;
}

OtlpSender::OtlpSender(OtlpHttpExporter& exporter, std::function<void(const std::string&)> log,
                       size_t max_request_bytes)
    : exporter_(exporter), log_(std::move(log)), max_request_bytes_(max_request_bytes) {}

void OtlpSender::Add(absl::string_view lines) {
  while (!lines.empty()) {
    const size_t newline = lines.find('\n');
    absl::string_view line = lines.substr(0, newline);
    lines.remove_prefix(newline == absl::string_view::npos ? lines.size() : newline + 1);
    if (line.empty()) continue;
    if (absl::StartsWith(line, kMetricsPrefix)) {
      // Gauges: an ExportMetricsServiceRequest of its own, after the spans before it.
      Flush();
      SendMetrics(line);
      continue;
    }
    absl::string_view inner = line;
    if (!absl::ConsumePrefix(&inner, kRequestPrefix) ||
        !absl::ConsumeSuffix(&inner, kRequestSuffix)) {
      Send(line, CountOtlpSpans(line));  // not the formatter's shape: send it as it is
      continue;
    }
    if (!batch_.empty() &&
        batch_.size() + inner.size() + kRequestPrefix.size() + 3 > max_request_bytes_) {
      Flush();
    }
    if (!batch_.empty()) batch_.push_back(',');
    batch_.append(inner.data(), inner.size());
    batch_spans_ += CountOtlpSpans(inner);
  }
}

void OtlpSender::Flush() {
  if (batch_.empty()) return;
  const std::string request = absl::StrCat(kRequestPrefix, batch_, kRequestSuffix);
  const uint64_t spans = batch_spans_;
  batch_.clear();
  batch_spans_ = 0;
  Send(request, spans);
}

void OtlpSender::SendMetrics(absl::string_view request) {
  const ExportResult result = exporter_.Export(request, /*retry=*/!receiver_failing_,
                                               /*metrics=*/true);
  if (result.status.ok()) {
    receiver_failing_ = false;
    ++totals_.metric_requests;
    return;
  }
  receiver_failing_ = absl::IsUnavailable(result.status);
  ++totals_.failed_requests;
  log_(absl::StrCat("a request of gauge samples (", request.size(), " bytes) was not delivered to ",
                    exporter_.metrics_url(), ": ", result.status.message()));
}

void OtlpSender::Send(absl::string_view request, uint64_t spans) {
  const ExportResult result = exporter_.Export(request, /*retry=*/!receiver_failing_);
  if (result.status.ok()) {
    receiver_failing_ = false;
    ++totals_.requests;
    totals_.spans += spans;
    if (result.rejected_spans > 0) {
      totals_.rejected_spans += static_cast<uint64_t>(result.rejected_spans);
      log_(absl::StrCat(exporter_.url(), " rejected ", result.rejected_spans, " of ", spans,
                        " spans", result.rejection_message.empty() ? "" : ": ",
                        result.rejection_message));
    }
    return;
  }
  // A receiver that refused the request itself (4xx) is not down: keep retrying others.
  receiver_failing_ = absl::IsUnavailable(result.status);
  ++totals_.failed_requests;
  totals_.failed_spans += spans;
  log_(absl::StrCat("a request of ", spans, " spans (", request.size(),
                    " bytes) was not delivered to ", exporter_.url(), ": ",
                    result.status.message()));
}

}  // namespace tracewire::tools
