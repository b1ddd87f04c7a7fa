// The flags of the OTLP/HTTP export (`decode` and `listen`): --otlp-endpoint,
// --otlp-header, --otlp-timeout and --otlp-retry-time, and the exporter options they make.
#ifndef TRACEWIRE_TOOLS_COMMANDS_OTLP_FLAGS_H_
#define TRACEWIRE_TOOLS_COMMANDS_OTLP_FLAGS_H_

#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/cli/command_line.h"
#include "tools/otlp/otlp_http_exporter.h"

ABSL_DECLARE_FLAG(std::string, otlp_endpoint);
ABSL_DECLARE_FLAG(std::string, otlp_header);
ABSL_DECLARE_FLAG(absl::Duration, otlp_timeout);
ABSL_DECLARE_FLAG(absl::Duration, otlp_retry_time);

namespace tracewire::tools {

// The --otlp-* flags of `line` as exporter options; an empty endpoint means no export.
// InvalidArgument (a message for the user) for a malformed header, a non-positive timeout,
// a negative retry time, or the other --otlp-* flags given without --otlp-endpoint.
absl::StatusOr<OtlpHttpOptions> OtlpOptionsFromFlags(const CommandLine& line);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_OTLP_FLAGS_H_
