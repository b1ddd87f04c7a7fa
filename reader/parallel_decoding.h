// Parallel decoding across generations. Generations are self-contained, so while a Reader
// delivers one generation, worker threads decode the next ones speculatively (against an
// empty process state, see reader/speculation_log.h). The Reader stays the authority:
// it frames the input, keeps the real process state and the loss report, and for each
// generation either takes the worker's result (after checking, in stream order, that the
// real decoding would produce the same) or decodes the generation itself from where the
// worker's delivered events end. Output order, events and errors are those of a serial
// read.
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
// split_generations, which cuts a generation into `jobs` parts).
#ifndef TRACEWIRE_READER_PARALLEL_DECODING_H_
#define TRACEWIRE_READER_PARALLEL_DECODING_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/frame_reader.h"
#include "reader/process_state.h"
#include "reader/speculation_log.h"

namespace tracewire::reader {

// The result of a GenerationWork over a run of events (owned by the consumer's types).
class BlockPayload {
 public:
  virtual ~BlockPayload() = default;
  // Memory held, for the queue limit.
  virtual size_t bytes() const = 0;
};

// What a worker does with the events it decodes: one instance per generation, used by
// one thread at a time.
class GenerationWork {
 public:
  virtual ~GenerationWork() = default;
  // Called for each event of the generation, in order.
  virtual void Add(const Event& event) = 0;
  // True when the events added since the last TakeBlock() should be handed over.
  virtual bool BlockFull() const = 0;
  // The result for the events added since the last call.
  virtual std::unique_ptr<BlockPayload> TakeBlock() = 0;
};

// A block of a generation handed to the commit callback.
struct CommittedBlock {
  absl::string_view sid;                  // the generation's process
  uint64_t events = 0;                    // events the payload covers
  std::unique_ptr<BlockPayload> payload;  // nullptr with ParallelOptions::count_only
};

// How readers decode in parallel.
struct ParallelOptions {
  // Worker threads (at least 1).
  int jobs = 2;
  // With both set, workers run make_work() on each generation's events and the reader
  // passes the payloads to commit() (on the reader's thread, in stream order) instead of
  // delivering those events. Otherwise workers copy the events for Next().
  std::function<std::unique_ptr<GenerationWork>()> make_work;
  std::function<void(CommittedBlock)> commit;
  // With commit set: workers only validate and count the events (decoding without filling
  // them, see GenerationDecoder::set_fill_events), and commit() gets blocks without a
  // payload. make_work is then not used.
  bool count_only = false;
  // Run make_work() not on the decoding worker but as separate tasks on copies of blocks
  // of events, which any thread may take (the reader's too): for work that costs much more
  // than decoding, several threads then share one generation, and a worker ahead needs to
  // hold little (max_block_bytes) to keep every thread busy.
  bool work_on_copies = false;
  // With make_work (not on copies, not in salvage mode): each large generation is cut
  // into `jobs` parts of about equal numbers of events, decoded by different workers; the
  // worker of a later part decodes the events before it without filling them (see
  // GenerationDecoder::set_fill_events) and runs make_work() on its own part only. For
  // work that costs much more than decoding: the threads then share one generation, and
  // a part ahead of the reader holds less.
  bool split_generations = false;
  // Generations estimated to hold fewer than this many events per part are not cut (each
  // later part decodes the events before it).
  uint64_t min_part_events = 16384;
  // Blocks a worker may queue ahead of the reader, in bytes, per generation (per part).
  size_t max_block_bytes = size_t{16} << 20;
  // A generation no worker has started when the reader gets to it is decoded by the
  // reader (without this, with several inputs, all workers may wait on generations of
  // other inputs). Only a single reader may turn it off.
  bool reader_decodes_unstarted = true;
};

// How the generations went (for tests and benchmarks).
struct ParallelCounters {
  uint64_t taken = 0;      // delivered wholly from a worker
  uint64_t fell_back = 0;  // a worker's result did not hold (or it failed): the reader decoded
                           // the rest
  uint64_t unstarted = 0;  // decoded by the reader: no worker had started it
};

// The worker threads, shared by the readers of one input (ReaderOptions::parallel).
class WorkerPool {
 public:
  explicit WorkerPool(ParallelOptions options);
  // Stops the threads (generations still queued are dropped).
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  const ParallelOptions& options() const;
  ParallelCounters counters() const;

  struct Job;
  struct Task;
  struct State;

 private:
  friend class ParallelDecoding;
  std::shared_ptr<State> state_;
};

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
