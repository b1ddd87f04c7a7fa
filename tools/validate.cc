#include "tools/validate.h"

#include <cstdio>
#include <memory>

#include "reader/parallel_decoding.h"
#include "tools/exit_codes.h"
#include "tools/output_file.h"
#include "tools/progress.h"
#include "tools/trace_input.h"

namespace tracewire::tools {
namespace {

// Parallel workers only count the events they validate (the count comes with each block).
class NoPayload : public reader::BlockPayload {
 public:
  size_t bytes() const override { return 0; }
};

class CountWork : public reader::GenerationWork {
 public:
  void Add(const reader::Event&) override {}
  bool BlockFull() const override { return false; }
  std::unique_ptr<reader::BlockPayload> TakeBlock() override {
    return std::make_unique<NoPayload>();
  }
};

}  // namespace

int Validate(const std::string& input_path, int jobs) {
  Progress progress("validate");
  uint64_t events = 0;
  TraceInput* input_ptr = nullptr;
  reader::ParallelOptions parallel;
  parallel.jobs = DecodingJobs(jobs);
  parallel.make_work = [] { return std::make_unique<CountWork>(); };
  parallel.commit = [&](reader::CommittedBlock block) {
    events += block.events;
    progress.Report(input_ptr->bytes_read(), input_ptr->total_bytes(), events);
  };
  absl::StatusOr<std::unique_ptr<TraceInput>> input =
      TraceInput::Open(input_path, {}, /*keep_stdin=*/false, &parallel);
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
