#include "tools/cli/event_loop.h"

#include <cstdio>
#include <string>

namespace tracewire::tools {

absl::Status ReadEvents(TraceInput* input, Progress* progress,
                        absl::FunctionRef<bool(const reader::Event&)> consume, uint64_t* events) {
  while (true) {
    absl::StatusOr<const reader::Event*> event = input->Next();
    if (!event.ok()) return event.status();
    if (*event == nullptr) return absl::OkStatus();
    ++*events;
    if (!consume(**event)) return absl::OkStatus();
    progress->Update(input->bytes_read(), input->total_bytes(), *events);
  }
}

bool ReportLosses(absl::string_view command, const TraceInput& input) {
  bool lost = false;
  for (const auto& [file, report] : input.LossReports()) {
    lost = true;
    std::fprintf(stderr, "tracewire %s: %s: %s\n", std::string(command).c_str(), file.c_str(),
                 report.Summary().c_str());
    for (const absl::Status& error : report.errors) {
      std::fprintf(stderr, "  %s\n", std::string(error.message()).c_str());
    }
  }
  return lost;
}

}  // namespace tracewire::tools
