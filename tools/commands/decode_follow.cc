#include "tools/commands/decode_follow.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>

#include "reader/follow.h"
#include "reader/reader.h"
#include "tools/commands/decode_output.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/stop_signals.h"
#include "tools/cli/trace_input.h"

namespace tracewire::tools {
namespace {

std::atomic<bool> g_stop{false};

void OnFollowStopSignal(int) { g_stop.store(true); }

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "tracewire decode: %s\n", std::string(status.message()).c_str());
}

}  // namespace

int DecodeFollow(const DecodeOptions& options, absl::Duration poll_interval) {
  if (options.input.empty() || options.input == "-") {
    PrintError(absl::InvalidArgumentError("--follow needs a FILE (not - or a directory)"));
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<targets::Formatter>> formatter =
      targets::MakeFormatter(options.format, options.formatter);
  if (!formatter.ok()) {
    PrintError(formatter.status());
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<DecodeOutput>> output =
      DecodeOutput::Open(options, {options.input});
  if (!output.ok()) {
    PrintError(output.status());
    return kExitUsage;
  }

  g_stop.store(false);
  const SavedStopActions saved_actions = InstallStopHandler(OnFollowStopSignal);

  absl::Status write_error;
  reader::FollowOptions follow;
  follow.poll_interval = poll_interval;
  follow.stop = [] { return g_stop.load(); };
  follow.on_wait = [&] {
    if (write_error.ok()) write_error = (*output)->Flush();
  };
  reader::ReaderOptions reader_options;
  reader_options.salvage = options.salvage;
  absl::StatusOr<std::unique_ptr<reader::Reader>> reader =
      reader::OpenFollowReader(options.input, follow, reader_options);
  absl::Status trace_error = reader.status();
  while (trace_error.ok() && write_error.ok()) {
    absl::StatusOr<const reader::Event*> event = (*reader)->Next();
    if (!event.ok()) {
      trace_error = event.status();
      break;
    }
    if (*event == nullptr) break;
    (*formatter)->Write(**event, (*output)->buffer());
    write_error = (*output)->Commit();
  }
  RestoreStopActions(saved_actions);

  // Stopped while the writer was inside a generation: that generation is not complete.
  const bool cut = absl::IsOutOfRange(trace_error);
  if (cut) {
    std::fprintf(stderr, "tracewire decode: stopped inside a generation: %s\n",
                 std::string(trace_error.message()).c_str());
    trace_error = absl::OkStatus();
  }
  if (trace_error.ok() && write_error.ok()) (*formatter)->Finish((*output)->buffer());
  if (absl::Status s = (*output)->Close(); write_error.ok()) write_error = s;
  if (!write_error.ok()) {
    PrintError(write_error);
    return kExitUsage;
  }
  const bool delivered = (*output)->ReportExport();
  if (!trace_error.ok()) {
    PrintError(trace_error);
    if (IsIoError(trace_error)) return kExitUsage;
    return delivered ? kExitInvalid : kExitNotDelivered;
  }
  return delivered ? kExitOk : kExitNotDelivered;
}

}  // namespace tracewire::tools
