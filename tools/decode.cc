#include "tools/decode.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "tools/decode_follow.h"
#include "tools/exit_codes.h"
#include "tools/output_file.h"
#include "tools/progress.h"
#include "tools/trace_input.h"

namespace tracewire::tools {
namespace {

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "tracewire decode: %s\n", std::string(status.message()).c_str());
}

// Prints the loss reports of a salvage read; returns true if anything was lost.
bool ReportLosses(const TraceInput& input) {
  bool lost = false;
  for (const auto& [file, report] : input.LossReports()) {
    lost = true;
    std::fprintf(stderr, "tracewire decode: %s: %s\n", file.c_str(), report.Summary().c_str());
    for (const absl::Status& error : report.errors) {
      std::fprintf(stderr, "  %s\n", std::string(error.message()).c_str());
    }
  }
  return lost;
}

}  // namespace

int Decode(const DecodeOptions& options) {
  if (options.follow) return DecodeFollow(options);
  absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
      targets::MakeFormatter(options.format, options.formatter);
  if (!formatter.ok()) {
    PrintError(formatter.status());
    return kExitUsage;
  }
  reader::ReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(options.input, reader_options);
  if (!input.ok()) {
    PrintError(input.status());
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> output = OutputFile::Open(options.output);
  if (!output.ok()) {
    PrintError(output.status());
    return kExitUsage;
  }
  Progress progress("decode");
  uint64_t events = 0;
  absl::Status trace_error;
  while (true) {
    absl::StatusOr<const reader::Event*> event = (*input)->Next();
    if (!event.ok()) {
      trace_error = event.status();
      break;
    }
    if (*event == nullptr) break;
    (*formatter)->Write(**event, (*output)->buffer());
    if (absl::Status s = (*output)->MaybeFlush(); !s.ok()) {
      progress.Finish();
      PrintError(s);
      return kExitUsage;
    }
    progress.Update((*input)->bytes_read(), (*input)->total_bytes(), ++events);
  }
  progress.Finish();
  if (trace_error.ok()) (*formatter)->Finish((*output)->buffer());
  if (absl::Status s = (*output)->Close(); !s.ok()) {
    PrintError(s);
    return kExitUsage;
  }
  if (!trace_error.ok()) {
    PrintError(trace_error);
    return IsIoError(trace_error) ? kExitUsage : kExitInvalid;
  }
  if (options.salvage && ReportLosses(**input)) return kExitInvalid;
  return kExitOk;
}

}  // namespace tracewire::tools
