#include "tools/commands/decode.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reader/parallel_decoding.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"
#include "tools/commands/decode_follow.h"
#include "tools/commands/decode_output.h"

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

// Output formatted by a parallel worker.
class TextPayload : public reader::BlockPayload {
 public:
  size_t bytes() const override { return text.capacity(); }
  std::string text;
};

// Text buffers written out and handed back to the workers (fresh memory would cost a page
// fault per page).
class TextPayloads {
 public:
  // Keeps up to `keep` buffers for reuse.
  explicit TextPayloads(size_t keep) : keep_(keep) {}
  std::unique_ptr<TextPayload> Take() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        std::unique_ptr<TextPayload> payload = std::move(free_.back());
        free_.pop_back();
        return payload;
      }
    }
    return std::make_unique<TextPayload>();
  }
  void Give(std::unique_ptr<TextPayload> payload) {
    payload->text.clear();
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.size() < keep_) free_.push_back(std::move(payload));
  }

 private:
  size_t keep_;
  std::mutex mu_;
  std::vector<std::unique_ptr<TextPayload>> free_;
};

// Formats a run of events with its own formatter (for context-free formatters).
class FormatWork : public reader::GenerationWork {
 public:
  FormatWork(std::unique_ptr<targets::Formatter> formatter, TextPayloads* payloads)
      : formatter_(std::move(formatter)), payloads_(payloads), payload_(payloads->Take()) {}
  ~FormatWork() override { payloads_->Give(std::move(payload_)); }
  void Add(const reader::Event& event) override { formatter_->Write(event, &payload_->text); }
  bool BlockFull() const override { return payload_->text.size() >= kBlockBytes; }
  std::unique_ptr<reader::BlockPayload> TakeBlock() override {
    return std::exchange(payload_, payloads_->Take());
  }

  static constexpr size_t kBlockBytes = size_t{1} << 20;

 private:
  std::unique_ptr<targets::Formatter> formatter_;
  TextPayloads* payloads_;
  std::unique_ptr<TextPayload> payload_;
};

}  // namespace

int Decode(const DecodeOptions& options) {
  if (options.follow) return DecodeFollow(options);
  absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
      targets::MakeFormatter(options.format, options.formatter);
  if (!formatter.ok()) {
    PrintError(formatter.status());
    return kExitUsage;
  }
  std::unique_ptr<DecodeOutput> out;
  Progress progress("decode");
  uint64_t events = 0;
  absl::Status trace_error;
  absl::Status write_error;
  TraceInput* input_ptr = nullptr;
  // Workers format runs of events themselves if the output of an event does not depend on
  // the ones before it; otherwise they only decode, and the events are formatted here.
  reader::ParallelOptions parallel;
  parallel.jobs = DecodingJobs(options.jobs);
  // Workers format the generations they decode; one ahead of the output holds at most
  // this much text before it waits. (Formatting copies of the events on any free thread
  // spreads one generation over the threads, but copying the events cost more than it
  // gained on the benchmark trace.)
  parallel.max_block_bytes = size_t{32} << 20;
  // Formatting costs ten times the decoding: both workers share each generation (the one
  // of the later half decodes the first half without formatting it), so that a worker
  // never waits long for the output to reach its generation.
  parallel.split_generations = true;
  TextPayloads payloads(parallel.jobs * (parallel.max_block_bytes / FormatWork::kBlockBytes + 4));
  // A window keeps state across the events (the regions open at its edges): the events are
  // formatted here, in order.
  std::optional<reader::EventWindow> window;
  if (options.window.active()) window.emplace(options.window);
  if ((*formatter)->context_free() && !window.has_value()) {
    parallel.make_work = [&options, &payloads] {
      return std::make_unique<FormatWork>(
          *targets::MakeFormatter(options.format, options.formatter), &payloads);
    };
    parallel.commit = [&](reader::CommittedBlock block) {
      events += block.events;
      std::unique_ptr<TextPayload> text(static_cast<TextPayload*>(block.payload.release()));
      if (write_error.ok()) write_error = out->Write(text->text);
      payloads.Give(std::move(text));
      progress.Report(input_ptr->bytes_read(), input_ptr->total_bytes(), events);
    };
  }
  reader::ReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(options.input, reader_options, /*keep_stdin=*/false, &parallel);
  if (!input.ok()) {
    PrintError(input.status());
    return kExitUsage;
  }
  input_ptr = input->get();
  absl::StatusOr<std::unique_ptr<DecodeOutput>> output =
      DecodeOutput::Open(options, (*input)->files());
  if (!output.ok()) {
    PrintError(output.status());
    return kExitUsage;
  }
  out = std::move(*output);
  while (true) {
    absl::StatusOr<const reader::Event*> event = (*input)->Next();
    if (!event.ok()) {
      trace_error = event.status();
      break;
    }
    if (!write_error.ok()) break;
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
  progress.Finish();
  if (!write_error.ok()) {
    PrintError(write_error);
    return kExitUsage;
  }
  if (trace_error.ok()) (*formatter)->Finish(out->buffer());
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
