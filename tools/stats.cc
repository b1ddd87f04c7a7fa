#include "tools/stats.h"

#include <cstdio>
#include <memory>

#include "reader/frame_reader.h"
#include "tools/exit_codes.h"
#include "tools/progress.h"
#include "tools/trace_input.h"
#include "tools/trace_stats.h"

namespace tracewire::tools {
namespace {

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "tracewire stats: %s\n", std::string(status.message()).c_str());
  return IsIoError(status) ? kExitUsage : kExitInvalid;
}

}  // namespace

int Stats(const std::string& input_path, size_t top) {
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(input_path, {}, /*keep_stdin=*/true);
  if (!input.ok()) {
    std::fprintf(stderr, "tracewire stats: %s\n", std::string(input.status().message()).c_str());
    return kExitUsage;
  }
  TraceStats stats;
  {
    Progress progress("stats");
    while (true) {
      absl::StatusOr<const reader::Event*> event = (*input)->Next();
      if (!event.ok()) {
        progress.Finish();
        return Fail(event.status());
      }
      if (*event == nullptr) break;
      stats.AddEvent(**event);
      progress.Update((*input)->bytes_read(), (*input)->total_bytes(), stats.events());
    }
  }
  // Second pass over the frames: generation sizes and compression.
  for (size_t i = 0; i < (*input)->files().size(); ++i) {
    absl::StatusOr<std::unique_ptr<reader::ByteSource>> source = (*input)->Reopen(i);
    if (!source.ok()) return Fail(source.status());
    reader::FrameReader frames(source->get());
    if (absl::StatusOr<uint32_t> version = frames.ReadHeader(); !version.ok()) {
      return Fail(version.status());
    }
    reader::RawGeneration generation;
    while (true) {
      absl::StatusOr<bool> more = frames.Next(&generation);
      if (!more.ok()) return Fail(more.status());
      if (!*more) break;
      stats.AddGeneration(generation);
    }
  }
  stats.SetInput((*input)->bytes_read(), (*input)->files().size(), (*input)->num_processes());
  const std::string report = stats.Render(input_path, top);
  std::fwrite(report.data(), 1, report.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitUsage;
}

}  // namespace tracewire::tools
