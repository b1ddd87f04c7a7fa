// Session: the process-wide state of the recorder (internal to the runtime).
#ifndef TRACEWIRE_RUNTIME_SESSION_H_
#define TRACEWIRE_RUNTIME_SESSION_H_

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/varint.h"
#include "runtime/buffer_pool.h"
#include "runtime/flight_ring.h"
#include "runtime/generation_frames.h"
#include "runtime/generation_writer.h"
#include "runtime/recorder.h"
#include "runtime/site_registry.h"
#include "runtime/target.h"

namespace tracewire::runtime {

using format::EventType;

// A table kind's records of the current generation: the open batch and the sealed ones,
// in pooled buffers. Requires tables_mu.
struct TableBuffer {
  EventType batch_type;
  Buffer* open = nullptr;  // records from open->data + kTableHeaderReserve
  size_t body_size = 0;
  BufferList sealed;

  explicit TableBuffer(EventType type) : batch_type(type) {}

  // Appends a record (already encoded, at most kStringCapacity bytes), sealing the open
  // batch first if it would overflow.
  void Append(absl::string_view record, uint64_t gen, BufferPool& pool);
  // Seals the open batch (header before its records) into `sealed`.
  void Seal(uint64_t gen);
  // Moves every batch into `frames`.
  void MoveTo(GenerationFrames* frames, uint64_t gen, BufferPool& pool);
};

struct TimerDefinition {
  std::string category;
  std::string name;
  bool per_thread = false;
};

// The process's timer and counter definitions and totals (indexed by ID).
struct TimerTables {
  TimerDefinition timer_defs[kMaxTimers];
  TimerState timer_totals[kMaxTimers];
  TimerDefinition counter_defs[kMaxCounters];
  uint64_t counter_totals[kMaxCounters] = {};
  bool counter_used[kMaxCounters] = {};
};

struct Session {
  // Threads.
  std::mutex registry_mu;
  std::vector<ThreadState*> threads;
  int next_thread_number = 1;
  // Tasks begun by threads that have exited, and tasks ended by them that another thread
  // began (requires registry_mu; reconciled and re-stated at each generation switch).
  std::vector<TaskRecord> orphan_tasks;
  std::vector<uint64_t> orphan_ended;
  // The next block of task IDs a thread takes (IDs are unique in the process, from 1).
  std::atomic<uint64_t> next_task_block{1};

  // Buffers of every kind, recycled.
  BufferPool pool;
  std::atomic<bool> refill_requested{false};

  // The generation being filled (its frames so far; the threads' open batches and the
  // tables join it at the advance).
  std::mutex output_mu;
  GenerationFrames filling;
  // The generation being filled outgrew GenerationMemoryLimit and its frames were given
  // back: it is dropped whole at its cut (its number is then missing from the trace).
  bool filling_overflowed = false;

  // Per-generation tables.
  std::mutex tables_mu;
  absl::flat_hash_map<std::string, uint64_t> interned;
  TableBuffer strings{EventType::kStringBatch};
  TableBuffer sites{EventType::kSiteBatch};
  TableBuffer stacks{EventType::kStackBatch};
  std::map<std::vector<uintptr_t>, uint64_t> stack_ids;
  uint64_t next_site_id = 0;
  std::atomic<uint64_t> next_string_id{1};
  std::string cmd_name;
  std::string hierarchy;
  bool has_cmd_name = false;

  SiteRegistry site_registry;
  uint32_t signal_site_index = 0;  // pre-registered: the signal handler cannot allocate

  // Output. advance_mu serialises advances and the writes of finished generations; take
  // it through AdvanceLock (advance_waiters counts the threads waiting for it).
  std::mutex advance_mu;
  std::atomic<int> advance_waiters{0};
  // Generations written or kept uncompressed although TRACEWIRE_COMPRESS asked for
  // compression (see CompressionPolicy); recorded at exit as the `tracewire`
  // `uncompressed_generations` counter. Written under advance_mu.
  std::atomic<uint64_t> uncompressed_generations{0};
  Destination destination;
  GenerationWriter writer;
  uint8_t file_header[format::kFileHeaderSize] = {};  // precomputed: the signal path
                                                      // cannot allocate
  bool compress = false;
  int write_timeout_ms = Destination::kDefaultTimeoutMs;
  uint64_t generation_ms = 1000;
  uint64_t generation_bytes = 8u << 20;
  std::thread advancer;
  std::mutex advancer_mu;
  std::condition_variable advancer_cv;
  bool advancer_stop = false;
  std::atomic<bool> advance_requested{false};

  // Flight-recorder mode (flight_ring enabled): finished generations are kept in the ring
  // (requires advance_mu) and written only by dumps.
  FlightRing flight_ring;
  uint64_t flight_dumped_gen = 0;  // the newest generation a dump wrote (stream targets)
  std::atomic<uint64_t> flight_dumps{0};
  int flight_signal = 0;
  bool flight_on_error = false;
  std::atomic<bool> flight_error_seen{false};
  int flight_wake_fd = -1;  // eventfd the dump thread waits on
  std::thread flight_dumper;
  std::atomic<bool> flight_dumper_stop{false};
  std::atomic<bool> flight_dump_pending{false};

  // Identity.
  std::string sid;
  uint64_t pid = 0;
  uint64_t start_time = 0;
  std::atomic<int> next_child_id{0};
  std::atomic<int> next_exec_id{0};
  std::atomic<int> next_repo_id{1};
  bool redact = true;
  bool forked_child = false;
  std::atomic<bool> emergency{false};

  // Timers and counters. The tables are allocated by the first definition (13 KiB a
  // program that defines none does not fault in) and never move; all three fields are set
  // under timers_mu.
  std::mutex timers_mu;
  std::unique_ptr<TimerTables> timer_tables;
  int num_timers = 0;
  int num_counters = 0;
};

// Holds s.advance_mu for its scope, counted in s.advance_waiters while waiting for it.
class AdvanceLock {
 public:
  explicit AdvanceLock(Session& s) : mu_(s.advance_mu) {
    // relaxed: a count that only hints a compression to give way; the mutex orders the rest.
    s.advance_waiters.fetch_add(1, std::memory_order_relaxed);
    mu_.lock();
    s.advance_waiters.fetch_sub(1, std::memory_order_relaxed);
  }
  ~AdvanceLock() { mu_.unlock(); }
  AdvanceLock(const AdvanceLock&) = delete;
  AdvanceLock& operator=(const AdvanceLock&) = delete;

 private:
  std::mutex& mu_;
};

// Moves the thread's event batch and string records into the generation (small ones are
// copied, big ones handed over with a fresh buffer in their place). Requires output_mu and
// either exclusive ownership of `ts` or being its thread.
void MoveThreadBuffersLocked(Session& s, ThreadState* ts);

// Moves the thread's (full) event batch into the generation, replacing it by a fresh
// buffer. Requires output_mu.
void AppendBatchLocked(Session& s, ThreadState* ts);

// Moves the thread's string records into the generation. Requires output_mu.
void AppendStringsLocked(Session& s, ThreadState* ts);

// The most memory the generation being filled may take (its flushed frames): a generation
// that outgrows it was not cut in time — the threads record faster than the cuts, the
// compression or the destination can follow — and is dropped whole, so that memory stays
// bounded (8 generation size limits, at least 4 MiB, at most half a generation's maximum
// size).
uint64_t GenerationMemoryLimit(const Session& s);

// Wakes the advancer once the generation has reached its size limit, or when the buffer
// pool runs low; drops the generation's frames past GenerationMemoryLimit. Requires
// output_mu.
void MaybeRequestAdvance(Session& s);

// Encodes the event_batch header of `ts`'s current batch of `body_size` bytes into `out`
// (at least kBatchHeaderReserve bytes); returns its size. Async-signal-safe.
size_t EncodeBatchHeader(uint8_t* out, const ThreadState& ts, size_t body_size);

// Records `value` as a new string of the thread's generation; `output_locked` tells whether
// the caller already holds output_mu (the advancer).
uint64_t UniqueStringImpl(ThreadState* ts, absl::string_view value, bool output_locked);

// Interns `value` in generation `gen`'s shared string table. Requires tables_mu.
uint64_t InternLocked(Session& s, uint64_t gen, absl::string_view value);

// The ID of the stack of return addresses `pcs` (innermost first) in generation `gen`'s
// stack table, recording it (and the module records a reader needs to symbolize it) if the
// generation does not have it yet. Requires tables_mu.
uint64_t InternStackLocked(Session& s, uint64_t gen, absl::Span<const uintptr_t> pcs);

// Site ID of registry entry `index` in generation `gen`. Requires tables_mu.
uint64_t GenSiteIdLocked(Session& s, uint64_t gen, uint32_t index);

// Writes thread_status and one region_active per open region of `ts`. Requires being in an
// event on ts's thread, or exclusive ownership with output_mu and tables_mu held (`locked`).
void WriteRestatement(ThreadState* ts, bool locked);

// Drops the tasks ended since the last switch from the threads' and the orphans' lists
// of active tasks. Requires registry_mu and exclusive ownership of every thread state.
void ReconcileTasksLocked(Session& s);
// Writes task_active for each of `tasks` into ts's batch (the advancer, locks held).
void WriteTaskRestatementLocked(Session& s, ThreadState* ts, const std::vector<TaskRecord>& tasks);

// Starts the thread that cuts generations on time and on size.
void StartAdvancer(Session& s);
// Stops and joins it.
void StopAdvancer(Session& s);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SESSION_H_
