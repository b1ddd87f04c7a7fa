#include "tools/validate.h"

#include <cstdio>
#include <memory>

#include "tools/exit_codes.h"
#include "tools/progress.h"
#include "tools/trace_input.h"

namespace tracewire::tools {

int Validate(const std::string& input_path) {
  absl::StatusOr<std::unique_ptr<TraceInput>> input = TraceInput::Open(input_path, {});
  if (!input.ok()) {
    std::fprintf(stderr, "tracewire validate: %s\n", std::string(input.status().message()).c_str());
    return kExitUsage;
  }
  Progress progress("validate");
  uint64_t events = 0;
  while (true) {
    absl::StatusOr<const reader::Event*> event = (*input)->Next();
    if (!event.ok()) {
      progress.Finish();
      std::fprintf(stderr, "tracewire validate: invalid trace: %s\n",
                   std::string(event.status().message()).c_str());
      return IsIoError(event.status()) ? kExitUsage : kExitInvalid;
    }
    if (*event == nullptr) break;
    progress.Update((*input)->bytes_read(), (*input)->total_bytes(), ++events);
  }
  progress.Finish();
  std::printf("%s: valid: %llu events, %llu generations, %zu processes\n", input_path.c_str(),
              static_cast<unsigned long long>(events),
              static_cast<unsigned long long>((*input)->generations()), (*input)->num_processes());
  return kExitOk;
}

}  // namespace tracewire::tools
