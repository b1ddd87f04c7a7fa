#include "reader/targets/output_formats.h"

#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reader/targets/chrome_target.h"
#include "reader/targets/event_target.h"
#include "reader/targets/folded_target.h"
#include "reader/targets/normal_target.h"
#include "reader/targets/otlp_target.h"
#include "reader/targets/perf_target.h"
#include "reader/targets/perfetto/perfetto_target.h"

namespace tracewire::targets {
namespace {

using Made = absl::StatusOr<std::unique_ptr<Formatter>>;

Made MakeEvent(const FormatterOptions& options) {
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

template <typename Target>
Made MakeTarget(const FormatterOptions& options) {
  return std::make_unique<Target>(options);
}

template <std::unique_ptr<Formatter> (*kMake)(const FormatterOptions&)>
Made MakeExporter(const FormatterOptions& options) {
  return kMake(options);
}

}  // namespace

absl::Span<const OutputFormat> OutputFormats() {
  static const std::vector<OutputFormat>* const kFormats = new std::vector<OutputFormat>{
      {.name = "event",
       .make = MakeEvent,
       .flags = {"brief", "git_exact", "nesting", "evt", "stacks"},
       .help = "git's Trace2 EVENT format: JSON lines (the default)"},
      {.name = "perf",
       .make = MakeTarget<PerfTarget>,
       .flags = {"brief", "git_exact"},
       .help = "git's Trace2 PERF format: columns"},
      {.name = "normal",
       .make = MakeTarget<NormalTarget>,
       .flags = {"brief", "git_exact"},
       .help = "git's Trace2 NORMAL format: plain text"},
      {.name = "chrome",
       .make = MakeExporter<MakeChromeFormatter>,
       .help = "Chrome Trace Event JSON, for Perfetto, DevTools and speedscope"},
      {.name = "otlp",
       .make = MakeExporter<MakeOtlpFormatter>,
       .help = "OTLP/JSON lines, one ExportTraceServiceRequest per process"},
      {.name = "perfetto",
       .make = MakeExporter<MakePerfettoFormatter>,
       .help = "a Perfetto protobuf trace for the Perfetto UI and its trace processor "
               "(binary: use -o)"},
      {.name = "folded",
       .make = MakeExporter<MakeFoldedFormatter>,
       .flags = {"regions"},
       .help = "the CPU samples of TRACEWIRE_CPU_PROFILE as collapsed stacks, "
               "\"frame;frame;frame WEIGHT\", for flamegraph.pl and speedscope",
       .streams = false,
       .skips = false},
  };
  return *kFormats;
}

const OutputFormat* FindOutputFormat(absl::string_view name) {
  for (const OutputFormat& format : OutputFormats()) {
    if (format.name == name) return &format;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Formatter>> MakeFormatter(absl::string_view name,
                                                         const FormatterOptions& options) {
  if (const OutputFormat* format = FindOutputFormat(name); format != nullptr) {
    return format->make(options);
  }
  std::vector<absl::string_view> names;
  for (const OutputFormat& format : OutputFormats()) names.push_back(format.name);
  return absl::InvalidArgumentError(
      absl::StrFormat("unknown output format '%s' (%s)", name, absl::StrJoin(names, ", ")));
}

}  // namespace tracewire::targets
