#include "reader/targets/formatter.h"

#include "absl/strings/str_format.h"
#include "reader/targets/chrome_target.h"
#include "reader/targets/event_target.h"
#include "reader/targets/folded_target.h"
#include "reader/targets/normal_target.h"
#include "reader/targets/otlp_target.h"
#include "reader/targets/perf_target.h"
#include "reader/targets/perfetto/perfetto_target.h"

namespace tracewire::targets {

absl::StatusOr<std::unique_ptr<Formatter>> MakeFormatter(absl::string_view name,
                                                         const FormatterOptions& options) {
  if (name == "event") {
    if (options.event_version < kMinEventVersion || options.event_version > kMaxEventVersion) {
      return absl::InvalidArgumentError(
          absl::StrFormat("event format version %d is not supported (%d to %d)",
                          options.event_version, kMinEventVersion, kMaxEventVersion));
    }
    if (options.event_nesting < 1) {
      return absl::InvalidArgumentError(
          absl::StrFormat("event nesting %d is not positive", options.event_nesting));
    }
    return std::make_unique<EventTarget>(options);
  }
  if (name == "perf") return std::make_unique<PerfTarget>(options);
  if (name == "normal") return std::make_unique<NormalTarget>(options);
  if (name == "chrome") return MakeChromeFormatter(options);
  if (name == "otlp") return MakeOtlpFormatter(options);
  if (name == "perfetto") return MakePerfettoFormatter(options);
  if (name == "folded") return MakeFoldedFormatter(options);
  return absl::InvalidArgumentError(absl::StrFormat(
      "unknown output format '%s' (event, perf, normal, chrome, otlp, perfetto, folded)", name));
}

}  // namespace tracewire::targets
