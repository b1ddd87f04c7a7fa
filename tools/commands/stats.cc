#include "tools/commands/stats.h"

#include <cstdio>
#include <memory>
#include <utility>

#include "reader/frame_reader.h"
#include "reader/parallel_decoding.h"
#include "tools/analysis/trace_stats.h"
#include "tools/cli/event_loop.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"

namespace tracewire::tools {
namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "tracewire stats: %s\n", std::string(status.message()).c_str());
  return IsIoError(status) ? kExitUsage : kExitInvalid;
}

// The statistics of a run of events, counted by a parallel worker and merged in order.
class StatsPayload : public reader::BlockPayload {
 public:
  size_t bytes() const override { return stats.bytes(); }
  TraceStats stats{/*partial=*/true};
};

class StatsWork : public reader::GenerationWork {
 public:
  void Add(const reader::Event& event) override { payload_->stats.AddEvent(event); }
  bool BlockFull() const override { return false; }
  std::unique_ptr<reader::BlockPayload> TakeBlock() override {
    return std::exchange(payload_, std::make_unique<StatsPayload>());
  }

 private:
  std::unique_ptr<StatsPayload> payload_ = std::make_unique<StatsPayload>();
};

}  // namespace

int Stats(const std::string& input_path, size_t top, int jobs) {
  TraceStats stats;
  Progress progress("stats");
  TraceInput* input_ptr = nullptr;
  reader::ParallelOptions parallel;
  parallel.jobs = DecodingJobs(jobs);
  parallel.make_work = [] { return std::make_unique<StatsWork>(); };
  parallel.commit = [&](reader::CommittedBlock block) {
    stats.Merge(static_cast<const StatsPayload&>(*block.payload).stats);
    progress.Report(input_ptr->bytes_read(), input_ptr->total_bytes(), stats.events());
  };
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(input_path, {}, /*keep_stdin=*/true, &parallel);
  if (!input.ok()) {
    std::fprintf(stderr, "tracewire stats: %s\n", std::string(input.status().message()).c_str());
    return kExitUsage;
  }
  if (absl::Status s = CheckOutputIsNotAnInput("", (*input)->files()); !s.ok()) {
    std::fprintf(stderr, "tracewire stats: %s\n", std::string(s.message()).c_str());
    return kExitUsage;
  }
  input_ptr = input->get();
  uint64_t events = 0;
  if (absl::Status s = ReadEvents(
          input->get(), &progress,
          [&](const reader::Event& event) {
            stats.AddEvent(event);
            return true;
          },
          &events);
      !s.ok()) {
    progress.Finish();
    return Fail(s);
  }
  progress.Finish();
  // The first pass's read buffers and framed generations are not needed any more.
  (*input)->CloseReaders();
  // Second pass over the frames: generation sizes and compression.
  for (size_t i = 0; i < (*input)->files().size(); ++i) {
    // A skipped file (reported below) counts with the generations framed before its error.
    const bool skipped = (*input)->skipped(i);
    absl::StatusOr<std::unique_ptr<reader::ByteSource>> source = (*input)->Reopen(i);
    if (!source.ok()) {
      if (skipped) continue;
      return Fail(source.status());
    }
    reader::FrameReader frames(source->get());
    if (absl::StatusOr<uint32_t> version = frames.ReadHeader(); !version.ok()) {
      if (skipped) continue;
      return Fail(version.status());
    }
    reader::RawGeneration generation;
    while (true) {
      absl::StatusOr<bool> more = frames.Next(&generation);
      if (!more.ok()) {
        if (skipped) break;
        return Fail(more.status());
      }
      if (!*more) break;
      stats.AddGeneration(generation);
    }
    stats.AddHeaderFlags(frames.header_flags());
  }
  stats.SetInput((*input)->bytes_read(), (*input)->files().size(), (*input)->num_processes());
  const std::string report = stats.Render(input_path, top);
  std::fwrite(report.data(), 1, report.size(), stdout);
  if (std::fflush(stdout) != 0) return kExitUsage;
  return ReportSkippedFiles("stats", **input) ? kExitSkipped : kExitOk;
}

}  // namespace tracewire::tools
