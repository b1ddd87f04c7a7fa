// Parallel decoding across generations: the reader's side (framing ahead, taking a
// worker's results in stream order, checking them, committing blocks); the worker threads
// are the WorkerPool (reader/worker_pool.h).
//
// Generations are self-contained, so while a Reader delivers one generation, worker threads
// decode the next ones speculatively (against an empty process state, see
// reader/speculation_log.h). The Reader stays the authority: it frames the input, keeps the
// real process state and the loss report, and for each generation either takes the worker's
// result (after checking, in stream order, that the real decoding would produce the same) or
// decodes the generation itself from where the worker's delivered events end. Output order,
// events and errors are those of a serial read.
//
// A worker hands a generation over in blocks of events, each either
//   * copies of the events, which the Reader then delivers through Next() (any consumer;
//     the consumer's own work stays serial), or
//   * the payload of a GenerationWork the worker ran on the events (formatted text,
//     partial statistics, ...), which the Reader passes to a commit callback in stream
//     order instead of delivering the events: the consumer's work runs in parallel too.
//     This needs a consumer whose result for a run of events does not depend on the
//     events before it, other than through what it merges in its commit callback.
//
// Memory: at most `jobs` + 1 generations are framed ahead per reader (and 2 * jobs + 2
// in all), each holding a copy of its bytes, its decoding state and at most
// `max_block_bytes` of blocks not yet taken by the Reader (per part with
// split_generations, which cuts a generation into `jobs` parts). The copies of all
// readers together stay within ParallelOptions::max_framed_bytes_per_job per worker beyond
// the first: a generation whose copy does not fit stays in the frame reader's buffer, is
// decoded by its reader, and framing ahead waits until it is delivered.
#ifndef TRACEWIRE_READER_PARALLEL_DECODING_H_
#define TRACEWIRE_READER_PARALLEL_DECODING_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/frame_reader.h"
#include "reader/process_state.h"
#include "reader/speculation_log.h"
#include "reader/worker_pool.h"

namespace tracewire::reader {

// The parallel part of one Reader (used by Reader only).
class ParallelDecoding {
 public:
  ParallelDecoding(std::shared_ptr<WorkerPool> pool, bool salvage);
  // Cancels the generations in flight and waits until no worker runs them.
  ~ParallelDecoding();
  ParallelDecoding(const ParallelDecoding&) = delete;
  ParallelDecoding& operator=(const ParallelDecoding&) = delete;

  // FrameReader::Next through a window of generations framed ahead and handed to the
  // workers. *gen views a copy that stays valid until the next call.
  absl::StatusOr<bool> NextFramed(FrameReader* frames, RawGeneration* gen);

  // After NextFramed returned a framing error and the reader resynchronised `frames` on a
  // later boundary (salvage): framing ahead resumes from there.
  void Resynchronized();

  // Whether the generation NextFramed() returned last is taken from a worker. In salvage
  // mode only if the worker validated all of it and the check against `states` passed
  // (so the reader's own validation would pass too). `states` must stay unchanged by
  // others until Next() returned nullptr.
  bool Begin(ProcessStates* states);

  // After Begin() returned true: the next event to deliver, or nullptr when the worker's
  // part is over (blocks for the commit callback are passed to it meanwhile). Then
  // completed() tells whether the whole generation was delivered (the process state is
  // then updated); if not, the reader decodes it from the start, skips the first
  // delivered_events() events and goes on.
  const Event* Next();
  bool completed() const { return completed_; }
  uint64_t delivered_events() const { return delivered_; }
  // Of delivered_events(), those passed to the commit callback rather than Next().
  uint64_t committed_events() const { return committed_; }

 private:
  struct Framed;
  // Drops a job: cancels it (and its queued tasks) and returns its slot to the pool.
  void Release(std::shared_ptr<WorkerPool::Job>& job);
  // Releases every part of the current generation.
  void ReleaseAll();
  // Ends the worker's part early: the reader decodes the rest.
  const Event* FallBack();
  void Count(uint64_t ParallelCounters::*counter);

  std::shared_ptr<WorkerPool> pool_;
  const ParallelOptions& options_;
  bool salvage_;
  size_t depth_;
  // The parts a generation of `payload_bytes` of event batches is cut into, and the
  // events of each (estimated from the generations read so far).
  size_t Parts(uint64_t payload_bytes, uint64_t* part_events) const;

  std::deque<std::unique_ptr<Framed>> window_;
  uint64_t seen_events_ = 0;         // events of the generations taken from workers...
  uint64_t seen_payload_bytes_ = 0;  // ... and their event batch bytes
  bool framing_done_ = false;
  bool holding_uncopied_ = false;  // the window ends with a generation left in framed_
  std::unique_ptr<Framed> current_;
  RawGeneration framed_;  // scratch for FrameReader::Next
  // The generation being taken from its worker.
  ProcessStates* states_ = nullptr;
  SpeculationCheck check_;
  bool checking_ = false;         // check_.Begin() done
  std::shared_ptr<void> replay_;  // the block whose events Next() returns
  const Event* replay_next_ = nullptr;
  const Event* replay_end_ = nullptr;
  bool completed_ = false;
  uint64_t delivered_ = 0;
  uint64_t committed_ = 0;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_PARALLEL_DECODING_H_
