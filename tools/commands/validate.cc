#include "tools/commands/validate.h"

#include <cstdio>
#include <memory>

#include "reader/parallel_decoding.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"

namespace tracewire::tools {
namespace {

// Events counted between progress reports.
constexpr uint64_t kEventsPerStep = 4096;

}  // namespace

int Validate(const std::string& input_path, int jobs) {
  Progress progress("validate");
  uint64_t events = 0;
  TraceInput* input_ptr = nullptr;
  reader::ParallelOptions parallel;
  parallel.jobs = DecodingJobs(jobs);
  // Workers only validate and count (the count comes with each block).
  parallel.count_only = true;
  parallel.commit = [&](reader::CommittedBlock block) {
    events += block.events;
    progress.Report(input_ptr->bytes_read(), input_ptr->total_bytes(), events);
  };
  reader::ReaderOptions reader_options;
  reader_options.count_only = true;  // nothing but the count is used
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(input_path, reader_options, /*keep_stdin=*/false, &parallel);
  if (!input.ok()) {
    std::fprintf(stderr, "tracewire validate: %s\n", std::string(input.status().message()).c_str());
    return kExitUsage;
  }
  if (absl::Status s = CheckOutputIsNotAnInput("", (*input)->files()); !s.ok()) {
    std::fprintf(stderr, "tracewire validate: %s\n", std::string(s.message()).c_str());
    return kExitUsage;
  }
  input_ptr = input->get();
  while (true) {
    absl::StatusOr<uint64_t> n = (*input)->SkipEvents(kEventsPerStep);
    if (!n.ok()) {
      progress.Finish();
      std::fprintf(stderr, "tracewire validate: invalid trace: %s\n",
                   std::string(n.status().message()).c_str());
      return IsIoError(n.status()) ? kExitUsage : kExitInvalid;
    }
    if (*n == 0) break;
    events += *n;
    progress.Report((*input)->bytes_read(), (*input)->total_bytes(), events);
  }
  progress.Finish();
  if (ReportSkippedFiles("validate", **input)) {
    const size_t skipped = (*input)->SkippedFiles().size();
    std::printf(
        "%s: invalid: %zu of %zu files could not be read; the others hold %llu events, %llu "
        "generations, %zu processes\n",
        input_path.c_str(), skipped, (*input)->files().size(),
        static_cast<unsigned long long>(events),
        static_cast<unsigned long long>((*input)->generations()), (*input)->num_processes());
    return kExitSkipped;
  }
  std::printf("%s: valid: %llu events, %llu generations, %zu processes\n", input_path.c_str(),
              static_cast<unsigned long long>(events),
              static_cast<unsigned long long>((*input)->generations()), (*input)->num_processes());
  return kExitOk;
}

}  // namespace tracewire::tools
