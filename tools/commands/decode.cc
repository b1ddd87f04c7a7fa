#include "tools/commands/decode.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reader/event_window.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"
#include "tools/commands/decode_follow.h"
#include "tools/commands/decode_output.h"
#include "tools/commands/decode_stripes.h"

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
  Progress progress("decode");
  absl::Status trace_error;
  absl::Status write_error;
  reader::ReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(options.input, reader_options, /*keep_stdin=*/false);
  if (!input.ok()) {
    PrintError(input.status());
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<DecodeOutput>> output =
      DecodeOutput::Open(options, (*input)->files());
  if (!output.ok()) {
    PrintError(output.status());
    return kExitUsage;
  }
  std::unique_ptr<DecodeOutput> out = std::move(*output);
  const int jobs = DecodingJobs(options.jobs);
  if (DecodesInStripes(options, jobs, **formatter)) {
    // Several threads, each writing its stripes of events (tools/commands/decode_stripes.h).
    StripedResult striped = DecodeInStripes(options, jobs, input->get(), out.get(), &progress);
    if (!striped.open_error.ok()) {
      progress.Finish();
      PrintError(striped.open_error);
      return kExitUsage;
    }
    trace_error = striped.trace_error;
    write_error = striped.write_error;
  } else {
    // A window keeps state across the events (the regions open at its edges).
    std::optional<reader::EventWindow> window;
    if (options.window.active()) window.emplace(options.window);
    uint64_t events = 0;
    while (true) {
      absl::StatusOr<const reader::Event*> event = (*input)->Next();
      if (!event.ok()) {
        trace_error = event.status();
        break;
      }
      if (*event == nullptr) break;
      if (window.has_value()) {
        // Past the window's end nothing more is written: stop reading.
        if (!window->Add(**event,
                         [&](const reader::Event& e) { (*formatter)->Write(e, out->buffer()); })) {
          break;
        }
      } else {
        (*formatter)->Write(**event, out->buffer());
      }
      if (absl::Status s = out->Commit(); !s.ok()) {
        progress.Finish();
        PrintError(s);
        return kExitUsage;
      }
      progress.Update((*input)->bytes_read(), (*input)->total_bytes(), ++events);
    }
    if (trace_error.ok()) (*formatter)->Finish(out->buffer());
  }
  progress.Finish();
  if (!write_error.ok()) {
    PrintError(write_error);
    return kExitUsage;
  }
  if (absl::Status s = out->Close(); !s.ok()) {
    PrintError(s);
    return kExitUsage;
  }
  const bool delivered = out->ReportExport();
  if (!trace_error.ok()) {
    PrintError(trace_error);
    if (IsIoError(trace_error)) return kExitUsage;
    return delivered ? kExitInvalid : kExitNotDelivered;
  }
  if (!delivered) return kExitNotDelivered;
  const bool lost = options.salvage && ReportLosses(**input);
  const bool skipped = ReportSkippedFiles("decode", **input);
  if (lost) return kExitInvalid;
  return skipped ? kExitSkipped : kExitOk;
}

}  // namespace tracewire::tools
