#include "tools/commands/otlp_flags.h"

#include <utility>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, otlp_endpoint, "",
          "decode, listen: send OTLP/JSON to this OTLP/HTTP base URL (POST <url>/v1/traces)");
ABSL_FLAG(std::string, otlp_header, "",
          "decode, listen: NAME=VALUE header of every OTLP request (repeatable)");
ABSL_FLAG(absl::Duration, otlp_timeout, absl::Seconds(10),
          "decode, listen: time limit of one OTLP request attempt");
ABSL_FLAG(absl::Duration, otlp_retry_time, absl::Seconds(60),
          "decode, listen: time limit of one OTLP request with its retries");

namespace tracewire::tools {

absl::StatusOr<OtlpHttpOptions> OtlpOptionsFromFlags(const CommandLine& line) {
  OtlpHttpOptions options;
  options.endpoint = absl::GetFlag(FLAGS_otlp_endpoint);
  options.timeout = absl::GetFlag(FLAGS_otlp_timeout);
  options.retry_time = absl::GetFlag(FLAGS_otlp_retry_time);
  for (const std::string& spec : line.All("otlp_header")) {
    absl::StatusOr<std::pair<std::string, std::string>> header = ParseOtlpHeader(spec);
    if (!header.ok()) return header.status();
    options.headers.push_back(*std::move(header));
  }
  if (options.endpoint.empty() &&
      (line.Has("otlp_header") || line.Has("otlp_timeout") || line.Has("otlp_retry_time"))) {
    return absl::InvalidArgumentError("the --otlp-* flags need --otlp-endpoint");
  }
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--otlp-timeout must be positive");
  }
  if (options.retry_time < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--otlp-retry-time must not be negative");
  }
  return options;
}

}  // namespace tracewire::tools
