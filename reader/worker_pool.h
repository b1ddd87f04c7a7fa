// WorkerPool: the worker threads that decode generations ahead of the readers of one input
// (ReaderOptions::parallel), and what they are told to do (ParallelOptions): copy the
// events they decode, or run a consumer's GenerationWork on them, or only validate and
// count them. The readers hand generations to the pool and take the results back in
// stream order through ParallelDecoding (reader/parallel_decoding.h).
#ifndef TRACEWIRE_READER_WORKER_POOL_H_
#define TRACEWIRE_READER_WORKER_POOL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "absl/strings/string_view.h"
#include "reader/event.h"

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
  size_t max_block_bytes = size_t{4} << 20;
  // The copies of generations framed ahead of the readers (and recycled for later ones),
  // in bytes, per worker thread beyond the first (one thread: this much): a generation
  // that does not fit is not copied, and its reader decodes it itself. With the blocks
  // above, what `jobs` workers add to a serial read stays under 64 MiB per thread beyond
  // the first.
  size_t max_framed_bytes_per_job = size_t{40} << 20;
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

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_WORKER_POOL_H_
