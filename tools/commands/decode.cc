#include "tools/commands/decode.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reader/event_window.h"
#include "tools/cli/event_loop.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"
#include "tools/commands/decode_blocks.h"
#include "tools/commands/decode_follow.h"
#include "tools/commands/decode_output.h"
#include "tools/commands/decode_stripes.h"

namespace tracewire::tools {
namespace {

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "tracewire decode: %s\n", std::string(status.message()).c_str());
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
  const int jobs = DecodingJobs(options.jobs);
  // A context-free format: the trace is decoded once and its blocks of events formatted on
  // every thread (tools/commands/decode_blocks.h); their text comes to `out` in order.
  std::unique_ptr<DecodeOutput> out;
  TraceInput* input_ptr = nullptr;
  uint64_t block_events = 0;
  std::optional<BlockFormatting> blocks;
  if (DecodesInBlocks(options, jobs, **formatter)) {
    blocks.emplace(options, jobs, [&](absl::string_view text, uint64_t events) {
      if (write_error.ok()) write_error = out->Write(text);
      block_events += events;
      progress.Report(input_ptr->bytes_read(), input_ptr->total_bytes(), block_events);
    });
  }
  reader::ReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(options.input, reader_options, /*keep_stdin=*/false,
                       blocks.has_value() ? &blocks->parallel_options() : nullptr);
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
  out = std::move(*output);
  input_ptr = input->get();
  if (!blocks.has_value() && DecodesInStripes(options, jobs, **formatter)) {
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
    absl::Status commit_error;
    trace_error = ReadEvents(
        input->get(), &progress,
        [&](const reader::Event& event) {
          if (window.has_value()) {
            // Past the window's end nothing more is written: stop reading.
            if (!window->Add(event, [&](const reader::Event& e) {
                  (*formatter)->Write(e, out->buffer());
                })) {
              return false;
            }
          } else {
            (*formatter)->Write(event, out->buffer());
          }
          commit_error = out->Commit();
          // A block's text that could not be written stops the read too.
          return commit_error.ok() && write_error.ok();
        },
        &events);
    if (!commit_error.ok()) {
      progress.Finish();
      PrintError(commit_error);
      return kExitUsage;
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
  const bool lost = options.salvage && ReportLosses("decode", **input);
  const bool skipped = ReportSkippedFiles("decode", **input);
  if (lost) return kExitInvalid;
  return skipped ? kExitSkipped : kExitOk;
}

}  // namespace tracewire::tools
