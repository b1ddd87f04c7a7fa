#include "runtime/recorder.h"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

#include "runtime/cpu_sampler.h"
#include "runtime/generation_frames.h"
#include "runtime/session.h"
#include "runtime/site_registry.h"
#include "runtime/startup_path.h"
#include "runtime/text.h"

namespace tracewire::runtime {

// The words every event reads, with the rest of the start-up data (see startup_path.h).
TRACEWIRE_STARTUP_DATA std::atomic<uint64_t> g_gen_word{kClosed};
TRACEWIRE_STARTUP_DATA std::atomic<bool> g_need_fence{false};
TRACEWIRE_STARTUP_DATA uint64_t g_stack_event_mask[4] = {};
TRACEWIRE_STARTUP_DATA std::atomic<bool> g_region_fast_path{false};

constinit thread_local ThreadState* t_state __attribute__((tls_model("initial-exec"))) = nullptr;

TRACEWIRE_STARTUP_DATA SiteRegistry* g_site_registry = nullptr;

namespace {
TRACEWIRE_STARTUP_DATA std::atomic<int> g_exit_code{0};
}  // namespace

// Allocated at the first use (tw_initialize with tracing on, or a call that needs it), not
// at start-up: a process that does not trace never maps or zeroes its 22 KB. Never
// destroyed: threads may still record while the process exits.
Session& GetSession() {
  static Session* const session = [] {
    auto* s = new Session;
    g_site_registry = &s->site_registry;
    return s;
  }();
  return *session;
}

namespace {

// git's thread name: "th%02d:<base name>".
std::string ThreadName(int thread_id, absl::string_view base_name) {
  std::string name = "th";
  AppendDec(&name, static_cast<uint64_t>(thread_id), 2);
  name.push_back(':');
  name.append(base_name.data(), base_name.size());
  return name;
}

// Detaches the thread (without events) when it ends without tw_thread_exit.
struct ThreadGuard {
  ~ThreadGuard() {
    if (t_state != nullptr && !t_state->is_main) DetachCurrentThread(false, nullptr, 0);
  }
};
thread_local ThreadGuard t_guard;

}  // namespace

size_t EncodeBatchHeader(uint8_t* out, const ThreadState& ts, size_t body_size) {
  return EncodeSmallRecord(out, EventType::kEventBatch,
                           {ts.gen.get(), ts.thread_id, ts.base_time.get(), body_size});
}

namespace {

// Seals the thread's batch (header before its events) in its buffer.
void SealBatch(ThreadState* ts) {
  const size_t size = ts->pos.get() - BatchBody(ts);
  uint8_t header[kBatchHeaderReserve];
  const size_t n = EncodeBatchHeader(header, *ts, size);
  SealFrame(ts->batch.get(), kBatchHeaderReserve, header, n, size);
}

// Points the thread's write position at its (new or emptied) batch buffer.
void ResetBatch(ThreadState* ts) {
  uint8_t* body = BatchBody(ts);
  ts->pos.publish(body);
  ts->limit.set(BatchLimit(ts));
  ts->base_time.set(ts->last_time.get());
}

// Seals the thread's string records into their string_batch frame.
void SealStrings(ThreadState* ts, size_t size) {
  uint8_t header[kTableHeaderReserve];
  const size_t n = EncodeSmallRecord(header, EventType::kStringBatch, {ts->gen.get(), size});
  SealFrame(ts->strings.get(), kTableHeaderReserve, header, n, size);
}

}  // namespace

// Hands the thread's full batch to the generation and gives it a fresh buffer. Requires
// output_mu.
void AppendBatchLocked(Session& s, ThreadState* ts) {
  if (ts->pos.get() == BatchBody(ts)) return;
  SealBatch(ts);
  s.filling.AppendBuffer(ts->batch.get());
  ts->batch.set(s.pool.Take());
  ResetBatch(ts);
  ts->batches_flushed.set(ts->batches_flushed.get() + 1);
}

// Moves the thread's string records into the generation. Requires output_mu.
void AppendStringsLocked(Session& s, ThreadState* ts) {
  // relaxed: the thread's own word, or the advancer's while it owns the thread state.
  const size_t size = ts->strings_size.load(std::memory_order_relaxed);
  if (size == 0) return;
  SealStrings(ts, size);
  Buffer* strings = ts->strings.get();
  s.filling.MoveFrame(&strings, s.pool);
  ts->strings.set(strings);
  ts->strings_size.store(0, std::memory_order_release);  // release: as AppendStringRecords
}

uint64_t GenerationMemoryLimit(const Session& s) {
  return std::clamp<uint64_t>(8 * s.generation_bytes, uint64_t{4} << 20,
                              format::kMaxGenerationSize / 2);
}

void MaybeRequestAdvance(Session& s) {
  if (s.filling.bytes() >= GenerationMemoryLimit(s)) {
    // The generation cannot be written whole any more: give its memory back now (the
    // threads go on recording into it, and it is dropped at its cut).
    s.filling.Release(s.pool);
    s.filling_overflowed = true;
  }
  // Both requests relaxed: flags that publish nothing (the advancer takes the locks that
  // guard what it then reads); the RMW lets one caller notify.
  if ((s.filling.bytes() >= s.generation_bytes || s.filling_overflowed) &&
      !s.advance_requested.exchange(true, std::memory_order_relaxed)) {
    s.advancer_cv.notify_one();
  }
  if (s.pool.WantsRefill() && !s.refill_requested.exchange(true, std::memory_order_relaxed)) {
    s.advancer_cv.notify_one();
  }
}

ThreadState* AttachThread(absl::string_view name, bool is_main, bool pending_status) {
  Session& s = GetSession();
  auto* ts = new ThreadState;
  ts->regions.reserve(32);
  ts->msg_arena.reserve(1024);
  ts->scratch.reserve(256);
  std::lock_guard<std::mutex> lock(s.registry_mu);
  // acquire, pairs with the release that published the word: its generation's state.
  const uint64_t word = g_gen_word.load(std::memory_order_acquire);
  if ((word & kClosed) != 0) {
    delete ts;
    return nullptr;
  }
  ts->batch.set(s.pool.Take());
  ts->strings.set(s.pool.Take());
  ts->is_main = is_main;
  ts->thread_id = is_main ? 0 : s.next_thread_number++;
  // Attaching runs on the thread itself. A forked child stops tracing (ForkChild), so no
  // state carries a parent's tid into a child.
  ts->tid = static_cast<uint64_t>(syscall(SYS_gettid));
  if (is_main) {
    ts->name = "main";
    ts->start_time = s.start_time;
  } else {
    ts->name = ThreadName(ts->thread_id, name);
    if (ts->name.size() > 24) ts->name.resize(24);  // git's TR2_MAX_THREAD_NAME
    ts->start_time = ReadTicks();
  }
  ts->last_time.set(std::max(ReadTicks(), ts->start_time));
  ResetBatch(ts);
  ts->restate_end.set(ts->pos.get());
  ts->gen.set(word >> 2);
  ts->pending_status.set(pending_status);
  // A pending thread_status is written by the slow path of its first event.
  ts->gen_word.set(pending_status ? 0 : word);
  AttachSampler(ts);
  s.threads.push_back(ts);
  t_state = ts;
  return ts;
}

ThreadState* PeekCurrentThread() { return t_state; }

void ClearCurrentThread() { t_state = nullptr; }

void MoveThreadBuffersLocked(Session& s, ThreadState* ts) {
  if (ts->pos.get() != BatchBody(ts)) {
    SealBatch(ts);
    Buffer* batch = ts->batch.get();
    s.filling.MoveFrame(&batch, s.pool);
    ts->batch.set(batch);
    ResetBatch(ts);
    ts->batches_flushed.set(ts->batches_flushed.get() + 1);
  }
  AppendStringsLocked(s, ts);
}

void HeavyFence() {
  if (!g_need_fence.load(std::memory_order_relaxed)) {  // relaxed: set once before threads
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
  }
  FullFence();
}

ThreadState* AttachUnknownThread() {
  // relaxed: a quick check; AttachThread loads the word again with acquire.
  if ((g_gen_word.load(std::memory_order_relaxed) & kClosed) != 0) return nullptr;
  return AttachThread("unknown", false, true);
}

bool CatchUpGeneration(ThreadState* ts) {
  for (;;) {
    // acquire, pairs with the advancer's release of the new word (as in BeginEvent).
    const uint64_t word = g_gen_word.load(std::memory_order_acquire);
    if ((word & kClosed) != 0) return false;
    if ((word & kAdvancing) != 0) {
      // Outside an event while the advance runs: yield a little, then sleep until the
      // advancer publishes (a thread waiting here must not burn CPU while the advancer
      // waits for one).
      // release, as EndEvent's: the advancer may take the thread state now.
      ts->in_event.store(0, std::memory_order_release);
      // acquire (both), pairs with the advancer's release of the new word.
      for (int spins = 0; (g_gen_word.load(std::memory_order_acquire) & kAdvancing) != 0; ++spins) {
        if (spins < 64) {
          sched_yield();
        } else {
          g_gen_word.wait(word, std::memory_order_acquire);  // acquire: as the loop's
        }
      }
      // relaxed, then LightFence: as in BeginEvent.
      ts->in_event.store(1, std::memory_order_relaxed);
      LightFence();
      continue;
    }
    if (word != ts->gen_word.get()) {
      // Only a newly attached thread gets here: its status is written by itself.
      ts->gen.set(word >> 2);
      ts->gen_word.set(word);
      if (ts->pending_status.get()) WriteRestatement(ts, false);
    }
    return true;
  }
}

void FlushBatch(ThreadState* ts) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> lock(s.output_mu);
  if (ts->samples != nullptr) DrainSamplesLocked(s, ts, /*tables_locked=*/false);
  if (ts->pos.get() > BatchLimit(ts)) {
    AppendBatchLocked(s, ts);
    RearmSampleLimit(ts);
  }
  MaybeRequestAdvance(s);
}

TRACEWIRE_STARTUP_PATH void SetExitCode(int code) {
  g_exit_code.store(code, std::memory_order_relaxed);  // relaxed: a value, publishes nothing
}

int ExitCode() { return g_exit_code.load(std::memory_order_relaxed); }  // relaxed: as above

void NameCurrentThread(ThreadState* ts, absl::string_view base_name) {
  ts->name = ThreadName(ts->thread_id, base_name);
  if (ts->name.size() > 24) ts->name.resize(24);
}

// relaxed: unique-ID counters; the IDs publish no data.
int NextChildId() { return GetSession().next_child_id.fetch_add(1, std::memory_order_relaxed); }
int NextExecId() { return GetSession().next_exec_id.fetch_add(1, std::memory_order_relaxed); }
int NextRepoId() { return GetSession().next_repo_id.fetch_add(1, std::memory_order_relaxed); }
bool RedactionEnabled() { return GetSession().redact; }

}  // namespace tracewire::runtime
