// Generations: the advance that closes one generation and opens the next (re-stating every
// live thread), the background advancer, and writing finished generations out.
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <mutex>

#include "absl/container/flat_hash_set.h"
#include "format/generation_records.h"
#include "format/varint.h"
#include "runtime/cpu_sampler.h"
#include "runtime/generation_trailer.h"
#include "runtime/recorder.h"
#include "runtime/session.h"

namespace tracewire::runtime {
namespace {

// Turns tracing off for good after the destination failed (it has warned once).
void StopTracingAfterWriteFailure() {
  // seq_cst (a cold path; relaxed would do): it publishes nothing, a thread that sees it
  // only drops its events.
  g_gen_word.store(kClosed, std::memory_order_seq_cst);
  __atomic_store_n(&tw_enabled_flag, 0, __ATOMIC_RELAXED);  // relaxed: only gates the macros
}

// Cuts generations on time, on size (advance_requested) and refills the buffer pool
// ahead of the recording threads (refill_requested), so their page faults happen here.
void AdvancerLoop() {
  Session& s = GetSession();
  std::unique_lock<std::mutex> lock(s.advancer_mu);
  auto next_cut = std::chrono::steady_clock::now() + std::chrono::milliseconds(s.generation_ms);
  while (!s.advancer_stop) {
    // The requests: relaxed flags (see MaybeRequestAdvance); what they ask for is read
    // under the locks the cut and the refill take.
    s.advancer_cv.wait_until(lock, next_cut, [&] {
      return s.advancer_stop || s.advance_requested.load(std::memory_order_relaxed) ||
             s.refill_requested.load(std::memory_order_relaxed);
    });
    if (s.advancer_stop) break;
    if (s.refill_requested.exchange(false, std::memory_order_relaxed)) {
      lock.unlock();
      s.pool.Refill();
      lock.lock();
      continue;
    }
    if (!s.advance_requested.exchange(false, std::memory_order_relaxed) &&
        std::chrono::steady_clock::now() < next_cut) {
      continue;
    }
    next_cut = std::chrono::steady_clock::now() + std::chrono::milliseconds(s.generation_ms);
    lock.unlock();
    AdvanceGeneration(false);
    lock.lock();
  }
}

// Appends the generation's closing records (clock_sync, process_info, end_of_generation).
// Requires output_mu and tables_mu.
void AppendClosingRecords(Session& s, uint64_t gen, uint64_t sid_id, uint64_t name_id,
                          uint64_t hierarchy_id) {
  uint8_t records[kClosingRecordsMaxSize];
  const size_t n = EncodeClosingRecords(s, gen, {sid_id, name_id, hierarchy_id},
                                        /*signal_safe=*/false, records);
  s.filling.CopyFrame(records, n, s.pool);
}

// True once the thread's event stream of its generation has begun (its re-statement or
// thread_start is written): samples may follow.
bool StreamBegun(const ThreadState* ts) {
  return !ts->pending_status.get() &&
         (ts->pos.get() != BatchBody(ts) || ts->batches_flushed.get() != 0);
}

}  // namespace

// Writes thread_status and one region_active per open region. Requires BeginEvent or
// exclusive ownership (advancer, with output_mu and tables_mu held: `locked`).
void WriteRestatement(ThreadState* ts, bool locked) {
  Session& s = GetSession();
  uint64_t now;
  uint64_t dt = StampEvent(ts, &now);
  const uint64_t name_id = UniqueStringImpl(ts, ts->name, locked);
  WriteEvent(ts, EventType::kThreadStatus, {dt, name_id, ts->start_time, ts->tid});
  for (const RegionFrame& frame : ts->regions) {
    // BatchLimit, not `limit`: a limit lowered for the CPU profile's samples must not drain
    // them in the middle of the re-statement.
    if (ts->pos.get() > BatchLimit(ts)) {
      if (locked) {
        AppendBatchLocked(s, ts);
      } else {
        FlushBatch(ts);
      }
    }
    const uint64_t site_id = locked ? GenSiteIdLocked(s, ts->gen.get(), frame.site_index)
                                    : GenSiteId(ts, frame.site_index);
    const uint64_t msg_id =
        frame.has_msg
            ? UniqueStringImpl(
                  ts, absl::string_view(ts->msg_arena.data() + frame.msg_offset, frame.msg_length),
                  locked)
            : 0;
    dt = StampEvent(ts, &now);
    WriteEvent(ts, EventType::kRegionActive, {dt, site_id, msg_id, frame.enter_time});
  }
  // A thread's tasks exist only once it has recorded events: only the advancer, which owns
  // every state, re-states them.
  if (locked) {
    WriteTaskRestatementLocked(s, ts, ts->begun_tasks);
    if (ts->adopted_task != 0) {
      if (ts->pos.get() > ts->limit.get()) AppendBatchLocked(s, ts);
      dt = StampEvent(ts, &now);
      WriteEvent(ts, EventType::kTaskAdopted, {dt, ts->adopted_task});
    }
  }
  ts->pending_status.set(false);
}

void WriteTaskRestatementLocked(Session& s, ThreadState* ts, const std::vector<TaskRecord>& tasks) {
  uint64_t now;
  for (const TaskRecord& task : tasks) {
    if (ts->pos.get() > ts->limit.get()) AppendBatchLocked(s, ts);
    const uint64_t site_id = GenSiteIdLocked(s, ts->gen.get(), task.site_index);
    const uint64_t dt = StampEvent(ts, &now);
    WriteEvent(ts, EventType::kTaskActive, {dt, site_id, task.id, task.parent, task.begin_time});
  }
}

void ReconcileTasksLocked(Session& s) {
  absl::flat_hash_set<uint64_t> ended(s.orphan_ended.begin(), s.orphan_ended.end());
  s.orphan_ended.clear();
  for (ThreadState* ts : s.threads) {
    ended.insert(ts->ended_tasks.begin(), ts->ended_tasks.end());
    ts->ended_tasks.clear();
  }
  if (ended.empty()) return;
  auto drop_ended = [&ended](std::vector<TaskRecord>& tasks) {
    tasks.erase(std::remove_if(tasks.begin(), tasks.end(),
                               [&ended](const TaskRecord& t) { return ended.contains(t.id); }),
                tasks.end());
  };
  for (ThreadState* ts : s.threads) drop_ended(ts->begun_tasks);
  drop_ended(s.orphan_tasks);
}

void OpenGenerationLocked(Session& s, uint64_t gen) {
  InternLocked(s, gen, s.sid);
  if (s.has_cmd_name) InternCommandNameLocked(s, gen);
  GenSiteIdLocked(s, gen, s.signal_site_index);
}

void InternCommandNameLocked(Session& s, uint64_t gen) {
  InternLocked(s, gen, s.cmd_name);
  InternLocked(s, gen, s.hierarchy);
}

void StartAdvancer(Session& s) {
  s.advancer_stop = false;
  // The advancer blocks every signal it can: a signal meant for the program (SIGTERM, a
  // timer) is then delivered to one of the program's threads, never to the thread that
  // holds the recorder's locks.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  s.advancer = std::thread(AdvancerLoop);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void StopAdvancer(Session& s) {
  {
    std::lock_guard<std::mutex> lock(s.advancer_mu);
    s.advancer_stop = true;
  }
  s.advancer_cv.notify_all();
  if (s.advancer.joinable()) s.advancer.join();
}

void AdvanceGeneration(bool final) {
  AdvanceLock advance_lock(GetSession());
  AdvanceGenerationLocked(final);
}

namespace {

// A generation cut and waiting to be written or kept (requires advance_mu).
struct CutGeneration {
  GenerationFrames frames;
  bool overflowed = false;  // its frames were given back: it is dropped
  bool final = false;       // cut by the final advance
  size_t max_compressed = SIZE_MAX;
};

// Generations cut and not yet written, oldest first: the one cut ahead of the compression
// in progress (CompressionShouldGiveWay), or the one that follows a dropped last
// generation. Requires advance_mu.
constexpr int kMaxQueued = 2;
CutGeneration g_queue[kMaxQueued];
int g_queue_head = 0;
int g_queue_size = 0;

// Closes the generation being filled and opens the next (re-stating every live thread),
// queueing the closed one; false if tracing is closed or nothing was recorded since the
// last cut. Requires advance_mu and a free queue slot.
bool CutGenerationLocked(Session& s, bool final, bool even_if_empty) {
  CutGeneration& cut = g_queue[(g_queue_head + g_queue_size) % kMaxQueued];
  std::lock_guard<std::mutex> registry_lock(s.registry_mu);
  // acquire: the word this thread published last (advance_mu orders it too).
  const uint64_t word = g_gen_word.load(std::memory_order_acquire);
  if ((word & kClosed) != 0) return false;
  const uint64_t gen = word >> 2;
  // relaxed: HeavyFence orders it before the loads of in_event below (store-load).
  g_gen_word.store(word | kAdvancing, std::memory_order_relaxed);
  HeavyFence();
  for (ThreadState* ts : s.threads) {
    // acquire, pairs with EndEvent's release: the thread's batch bytes and cold state
    // (regions, tasks, ended tasks, strings) are read after it.
    while (ts->in_event.load(std::memory_order_acquire) != 0) sched_yield();
  }
  // Every thread is outside an event: the recorder owns all thread states now.
  std::lock_guard<std::mutex> output_lock(s.output_mu);
  std::lock_guard<std::mutex> tables_lock(s.tables_mu);
  // Ends the advance with `next` unless tracing was closed meanwhile (a fatal signal or
  // a failed write): then it stays closed.
  auto publish = [&](uint64_t next) {
    uint64_t expected = word | kAdvancing;
    // release, pairs with the threads' acquire loads of g_gen_word: the re-statements,
    // new buffers and reconciled tasks are visible before a thread writes on. relaxed on
    // failure: tracing closed, nothing to publish.
    g_gen_word.compare_exchange_strong(expected, next, std::memory_order_release,
                                       std::memory_order_relaxed);
    g_gen_word.notify_all();  // threads sleeping in CatchUpGeneration
  };
  bool anything_new = !s.filling.empty() || final || even_if_empty;
  for (ThreadState* ts : s.threads) {
    if (ts->pos.get() != ts->restate_end.get() || ts->batches_flushed.get() != 0 ||
        (SamplesPending(ts) && StreamBegun(ts))) {
      anything_new = true;
    }
  }
  if (!anything_new) {
    publish(word);
    return false;
  }
  // A generation cut on time holds up to generation_bytes, plus the threads' open
  // batches; one far beyond that was cut late.
  cut.max_compressed = 2 * s.generation_bytes + s.threads.size() * kBufferSize;
  for (ThreadState* ts : s.threads) {
    // Samples of a thread whose stream has not begun wait for its first event.
    if (ts->samples != nullptr && StreamBegun(ts)) DrainSamplesLocked(s, ts, true);
    MoveThreadBuffersLocked(s, ts);
  }
  const uint64_t sid_id = InternLocked(s, gen, s.sid);
  const uint64_t name_id = s.has_cmd_name ? InternLocked(s, gen, s.cmd_name) : 0;
  const uint64_t hierarchy_id = s.has_cmd_name ? InternLocked(s, gen, s.hierarchy) : 0;
  s.sites.MoveTo(&s.filling, gen, s.pool);
  s.stacks.MoveTo(&s.filling, gen, s.pool);
  s.strings.MoveTo(&s.filling, gen, s.pool);
  AppendClosingRecords(s, gen, sid_id, name_id, hierarchy_id);
  cut.frames = s.filling;
  cut.frames.gen = gen;
  cut.final = final;
  s.filling = GenerationFrames{};
  cut.overflowed = s.filling_overflowed;
  s.filling_overflowed = false;
  // A dropped generation shows as a gap only before a later one: a dropped last
  // generation is followed by one more (re-statements and closing records only).
  const bool last = final && !cut.overflowed;

  // Open the next generation.
  s.interned.clear();
  s.stack_ids.clear();
  s.next_site_id = 0;
  s.next_string_id.store(1, std::memory_order_relaxed);
  const uint64_t new_gen = gen + 1;
  const uint64_t new_word = last ? kClosed : new_gen << 2;
  s.filling.gen = new_gen;
  if (!last) {
    OpenGenerationLocked(s, new_gen);
    ReconcileTasksLocked(s);
    for (ThreadState* ts : s.threads) {
      ts->gen.set(new_gen);
      ts->gen_word.set(new_word);
      ts->next_string_id.set(0);
      ts->string_id_limit.set(0);
      ts->batches_flushed.set(0);
      WriteRestatement(ts, true);
      // The tasks of exited threads: re-stated by the first live thread (main).
      if (ts == s.threads.front()) WriteTaskRestatementLocked(s, ts, s.orphan_tasks);
      ts->restate_end.set(ts->pos.get());
      RearmSampleLimit(ts);
    }
  }
  publish(new_word);
  ++g_queue_size;
  return true;
}

// The give-way check of a compression under advance_mu. Once the next generation has
// reached its size limit, it is cut at once and queued behind the one being compressed (a
// compression never delays a cut). If the one after reaches its limit too while that one
// still waits, the compression falls behind the recording: it stops, and this generation
// is written uncompressed (so the queue never holds more than one generation, and the
// generation being filled never outgrows its memory limit for a compression). It also
// stops on a fatal signal (the emergency path waits for advance_mu).
bool CompressionShouldGiveWay() {
  Session& s = GetSession();
  // All relaxed: flags that publish nothing (see MaybeRequestAdvance).
  if (s.emergency.load(std::memory_order_relaxed)) return true;
  if (!s.advance_requested.load(std::memory_order_relaxed)) return false;
  if (g_queue_size != 0) return true;
  s.advance_requested.store(false, std::memory_order_relaxed);
  CutGenerationLocked(s, /*final=*/false, /*even_if_empty=*/false);
  return false;
}

// Writes (or keeps in the flight ring) the queued generations, oldest first. Requires
// advance_mu.
void WriteQueuedLocked(Session& s) {
  CompressionPolicy compression;
  compression.enabled = s.compress && !s.destination.is_datagram();
  compression.give_way = CompressionShouldGiveWay;
  while (g_queue_size != 0) {
    CutGeneration cut = g_queue[g_queue_head];
    g_queue[g_queue_head] = CutGeneration{};
    g_queue_head = (g_queue_head + 1) % kMaxQueued;
    --g_queue_size;
    if (cut.overflowed) {
      // Its first frames were given back (MaybeRequestAdvance): the trace skips its number.
      cut.frames.Release(s.pool);
      // The last generation dropped: one more makes the gap show.
      if (cut.final) CutGenerationLocked(s, /*final=*/true, /*even_if_empty=*/false);
    } else {
      compression.max_bytes = cut.max_compressed;
      bool written = true;
      if (s.flight_ring.enabled()) {
        s.writer.Keep(&cut.frames, compression, s.flight_ring, s.pool);
      } else {
        written = s.writer.Deliver(&cut.frames, s.file_header, sizeof(s.file_header), compression,
                                   s.destination, s.pool);
      }
      if (!written) StopTracingAfterWriteFailure();
      if (written && compression.enabled && !s.writer.last_compressed()) {
        s.uncompressed_generations.fetch_add(1, std::memory_order_relaxed);  // relaxed: a count
      }
    }
  }
}

}  // namespace

void AdvanceGenerationLocked(bool final, bool even_if_empty) {
  Session& s = GetSession();
  if (!CutGenerationLocked(s, final, even_if_empty)) return;
  // Write with the threads running again, after making sure they have buffers to go on
  // with while this thread writes.
  if (!final && s.pool.WantsRefill() &&
      s.refill_requested.exchange(false, std::memory_order_relaxed)) {
    s.pool.Refill();  // (relaxed: a flag, see MaybeRequestAdvance)
  }
  WriteQueuedLocked(s);
}

}  // namespace tracewire::runtime
