// The recorder: per-thread batches, per-generation tables, the generation advance, and
// the output path. Internal to the runtime; the public API is tracewire.h.
//
// Concurrency protocol (docs/api.md "How recording works"):
// - Each thread writes events into its own ThreadState without locks. While writing it
//   holds `in_event` = 1: a relaxed store, a compiler barrier (LightFence), then an acquire
//   load of g_gen_word; EndEvent releases `in_event`. On x86-64 all of these are plain
//   moves.
// - g_gen_word = generation << 2 | kAdvancing | kClosed. A thread whose cached word differs
//   takes the slow path: it waits while an advance runs, and drops events once closed.
// - The advancer stores kAdvancing and runs HeavyFence (membarrier(2): a full barrier on
//   every thread of the process, so each thread either sees kAdvancing or has its
//   in_event = 1 visible; with a compiler barrier on the thread's side this is the
//   asymmetric form of a pair of sequentially consistent fences), then waits with acquire
//   loads until no thread is inside an event. It then owns every ThreadState: it moves
//   their batches into the finished generation, re-states each live thread
//   (thread_status, region_active) in the new one, publishes the new word with a release
//   store, and writes the finished generation with the threads running again.
// - Happens-before therefore always runs through atomics that ThreadSanitizer models (the
//   release of in_event to the advancer's acquire, the release of g_gen_word to the
//   thread's acquire); membarrier only excludes the store-load reordering TSan does not
//   check. Every word the switch writes and the fast path reads is an atomic (SharedWord,
//   relaxed: the same plain moves); the batch bytes and the thread's cold state (name,
//   open regions) are handed over by the handshake.
#ifndef TRACEWIRE_RUNTIME_RECORDER_H_
#define TRACEWIRE_RUNTIME_RECORDER_H_

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/varint.h"
#include "runtime/buffer_pool.h"
#include "runtime/clock.h"
#include "runtime/hot_sites.h"
#include "runtime/region_stack.h"
#include "runtime/site_cache.h"
#include "runtime/site_registry.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {

inline constexpr uint64_t kAdvancing = 1;
inline constexpr uint64_t kClosed = 2;
inline constexpr size_t kMaxEventSize = 1 + format::kMaxArgs * format::kMaxVarintSize;
// A batch buffer: room for the event_batch header, then the events.
inline constexpr size_t kBatchHeaderReserve = format::kMaxBatchHeaderSize;
inline constexpr size_t kBodyCapacity = kBufferSize - kBatchHeaderReserve;
// A string or table batch buffer: room for its header (type, generation, size), then records.
inline constexpr size_t kTableHeaderReserve = 1 + 2 * format::kMaxVarintSize;
inline constexpr size_t kStringCapacity = kBufferSize - kTableHeaderReserve;
inline constexpr int kMaxTimers = 64;
inline constexpr int kMaxCounters = 64;

extern std::atomic<uint64_t> g_gen_word;
// True when membarrier(2) is unavailable: both sides then use full fences.
extern std::atomic<bool> g_need_fence;

// A full memory fence. ThreadSanitizer does not model fences (and GCC warns about them
// under it), so there it is a sequentially consistent read-modify-write, a full barrier
// all the same.
inline void FullFence() {
#if defined(__SANITIZE_THREAD__)
  static std::atomic<int> fence_word{0};
  fence_word.fetch_add(0, std::memory_order_seq_cst);  // seq_cst: it stands for a full fence
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);  // seq_cst: orders stores before loads
#endif
}

// The recording side of the handshake, between the store to in_event and the load of
// g_gen_word: a compiler barrier, paired with the advancer's HeavyFence; a full fence when
// membarrier(2) is unavailable.
inline void LightFence() {
  std::atomic_signal_fence(std::memory_order_seq_cst);  // compiler-only; membarrier does the rest
  // relaxed: set once before any thread attaches.
  if (__builtin_expect(g_need_fence.load(std::memory_order_relaxed), 0)) FullFence();
}

// The switching side: a full memory barrier on every thread of the process
// (membarrier(2) PRIVATE_EXPEDITED), then a full fence on the calling thread.
// Async-signal-safe.
void HeavyFence();

// A word shared by a recording thread and the generation switch: a relaxed atomic, which
// compiles to the same plain load or store on x86-64. Relaxed because the in_event /
// g_gen_word handshake orders every access of the other side; atomic so that the
// emergency path's reads from a signal handler, and ThreadSanitizer, see defined values.
template <typename T>
class SharedWord {
 public:
  SharedWord() = default;
  explicit SharedWord(T value) : value_(value) {}
  T get() const { return value_.load(std::memory_order_relaxed); }       // relaxed: see above
  void set(T value) { value_.store(value, std::memory_order_relaxed); }  // relaxed: see above
  // A store that also publishes the writes before it (to an acquire load of this word).
  // release: no reader relies on it today (the emergency path reads a thread's pos on the
  // thread itself or after its in_event acquire); it keeps pos from ever showing a partial
  // event. A plain store on x86-64.
  void publish(T value) { value_.store(value, std::memory_order_release); }

 private:
  std::atomic<T> value_{};
};

// A task the thread began, active unless a thread has ended it since the last generation
// switch (the switch drops the ended ones: ReconcileTasksLocked).
struct TaskRecord {
  uint64_t id;
  uint64_t parent;
  uint32_t site_index;  // category and name
  uint64_t begin_time;
};

// Stopwatch state of one timer in one thread.
struct TimerState {
  uint64_t started = 0;
  uint32_t depth = 0;  // nested starts; only the outermost start/stop pair counts
  uint64_t intervals = 0;
  uint64_t total = 0;
  uint64_t min = 0;
  uint64_t max = 0;
};

// Everything one thread records into. Owned by the recorder's thread list. Aligned to a
// cache line so that two threads' hot words never share one.
struct SampleRing;

struct alignas(64) ThreadState {
  // The handshake and the words both the fast path and the generation switch use.
  std::atomic<uint32_t> in_event{0};
  SharedWord<uint64_t> gen_word;  // g_gen_word value this state is current for
  SharedWord<uint8_t*> pos;       // end of the last whole event (published per event)
  SharedWord<uint8_t*> limit;     // flush before writing an event when pos > limit
  SharedWord<uint64_t> last_time;
  SharedWord<uint64_t> gen;
  SharedWord<uint64_t> base_time;
  SharedWord<uint64_t> next_string_id;  // per-thread block of string IDs
  SharedWord<uint64_t> string_id_limit;
  SharedWord<Buffer*> batch;    // the event batch: events from batch->data + kBatchHeaderReserve
  SharedWord<Buffer*> strings;  // string records from strings->data + kTableHeaderReserve
  // String records waiting for a string_batch; committed bytes end at strings_size.
  std::atomic<size_t> strings_size{0};
  SharedWord<uint8_t*> restate_end;      // pos right after the generation's re-statement
  SharedWord<uint64_t> batches_flushed;  // batches moved into the current generation
  SharedWord<bool> pending_status;       // thread_status not yet written for this thread
  // Set at attach, then constant.
  uint64_t thread_id = 0;
  uint64_t tid = 0;  // the kernel's thread id (gettid), asked once at attach
  bool is_main = false;
  // The CPU profile's sample buffer (cpu_sampler.h), nullptr when sampling is off. Set
  // before the state is published to the advancer, cleared after it is removed.
  SampleRing* samples = nullptr;
  // Written by the thread inside events only (the switch reads them while it owns the
  // state).
  uint64_t start_time = 0;
  std::string name;
  RegionStack regions;
  std::string msg_arena;
  std::vector<TaskRecord> begun_tasks;  // tasks this thread began (re-stated while active)
  std::vector<uint64_t> ended_tasks;    // tasks it ended that another thread began
  uint64_t adopted_task = 0;            // the task the thread works for (0: none)
  uint64_t next_task_id = 0;            // the thread's block of task IDs
  uint64_t task_id_limit = 0;
  // The thread's alone.
  std::string scratch;          // reusable formatting buffer
  SiteContentCache site_cache;  // content-keyed site lookups (strings that may change)
  // Literal call sites the region hot path finds without the registry: filled by the full
  // path (RememberHotSite), read by the fast path, both inside an event.
  HotSite hot_sites[kHotSites];
  TimerState timers[kMaxTimers];
  uint64_t counters[kMaxCounters] = {};
  bool counter_used[kMaxCounters] = {};
};

// The first byte of the thread's batch body and of its string records.
inline uint8_t* BatchBody(const ThreadState* ts) {
  return ts->batch.get()->data + kBatchHeaderReserve;
}
// Where the thread's batch is full: an event starting beyond it flushes the batch first.
// `limit` holds it, or nullptr while the CPU profile has samples to drain.
inline uint8_t* BatchLimit(const ThreadState* ts) {
  return BatchBody(ts) + kBodyCapacity - kMaxEventSize;
}
inline uint8_t* StringRecords(const ThreadState* ts) {
  return ts->strings.get()->data + kTableHeaderReserve;
}

// Encodes a small record (type byte and varints) into `out`; returns its size.
// Async-signal-safe.
inline size_t EncodeSmallRecord(uint8_t* out, format::EventType type,
                                std::initializer_list<uint64_t> args) {
  uint8_t* p = out;
  *p++ = static_cast<uint8_t>(type);
  for (uint64_t arg : args) p = format::PutUvarint(p, arg);
  return p - out;
}

// The calling thread's state (nullptr until attached).
extern thread_local constinit ThreadState* t_state __attribute__((tls_model("initial-exec")));

// Slow path of CurrentThread: attaches the thread as "thNN:unknown".
ThreadState* AttachUnknownThread() __attribute__((noinline));

// The calling thread's state, attaching it (as "thNN:unknown") on first use. Returns
// nullptr if tracing is off or the thread cannot be attached.
inline ThreadState* CurrentThread() {
  ThreadState* ts = t_state;
  if (__builtin_expect(ts != nullptr, 1)) return ts;
  return AttachUnknownThread();
}

// The calling thread's state without attaching it (nullptr if none).
ThreadState* PeekCurrentThread();
// Forgets the calling thread's state (after DetachCurrentThread).
void ClearCurrentThread();

// Attaches the calling thread with `name` ("main" for the main thread, else the base name
// of "thNN:<name>"). With `pending_status` its first event is preceded by thread_status.
ThreadState* AttachThread(absl::string_view name, bool is_main, bool pending_status);

// Slow path of BeginEvent: the generation changed or tracing closed. Returns false to drop.
bool CatchUpGeneration(ThreadState* ts);

// The slow path of an event whose batch position is beyond `limit`: drains the CPU
// profile's samples into the batch, then, if the batch is full, moves it into the
// generation and takes a fresh buffer. Takes the output mutex.
void FlushBatch(ThreadState* ts);

// Starts writing an event on the calling thread; nullptr means drop it.
inline ThreadState* BeginEvent() {
  ThreadState* ts = CurrentThread();
  if (ts == nullptr) return nullptr;
  // relaxed: the thread's own word (a signal handler on this thread reads it).
  if (ts->in_event.load(std::memory_order_relaxed) != 0) return nullptr;  // signal re-entry
  // relaxed: ordered before the load below by LightFence with the advancer's HeavyFence.
  ts->in_event.store(1, std::memory_order_relaxed);
  LightFence();
  // acquire, pairs with the advancer's release of the new word: its re-statement and the
  // thread's new buffers are visible before this thread writes on.
  if (__builtin_expect(g_gen_word.load(std::memory_order_acquire) != ts->gen_word.get(), 0)) {
    if (!CatchUpGeneration(ts)) {
      // release, as EndEvent's.
      ts->in_event.store(0, std::memory_order_release);
      return nullptr;
    }
  }
  if (__builtin_expect(ts->pos.get() > ts->limit.get(), 0)) FlushBatch(ts);
  return ts;
}

// Ends the event started by BeginEvent. release, pairs with the advancer's acquire of
// in_event: the event's bytes (and the thread's cold state) are handed over with it.
inline void EndEvent(ThreadState* ts) { ts->in_event.store(0, std::memory_order_release); }

// Reads the clock and returns the delta from the thread's previous event (>= 1).
inline uint64_t StampEvent(ThreadState* ts, uint64_t* now_out) {
  uint64_t now = ReadTicks();
  const uint64_t last = ts->last_time.get();
  if (__builtin_expect(now <= last, 0)) now = last + 1;
  ts->last_time.set(now);
  *now_out = now;
  return now - last;
}

// Appends one event (type byte and varints) at ts->pos. Requires BeginEvent.
inline void WriteEvent(ThreadState* ts, format::EventType type,
                       std::initializer_list<uint64_t> args) {
  uint8_t* p = ts->pos.get();
  *p++ = static_cast<uint8_t>(type);
  for (uint64_t arg : args) p = format::PutUvarint(p, arg);
  ts->pos.publish(p);
}

// The site registry (process lifetime); set before tracing is enabled.
class SiteRegistry;
extern SiteRegistry* g_site_registry;

// Slow path of GenSiteId: assigns the site an ID in the thread's generation.
uint64_t GenSiteIdSlow(ThreadState* ts, uint32_t index) __attribute__((noinline));

// The value a literal call site's word holds once its category is known to be filtered
// out (TRACEWIRE_CATEGORIES): the macros test it inline and skip the call.
inline constexpr uint64_t kCallsiteFiltered = TW_CALLSITE_FILTERED;
// SiteIndexForCallsite's answer for a filtered site.
inline constexpr uint32_t kFilteredSite = ~uint32_t{0};

// Slow path of SiteIndexForCallsite: registers the site and fills the cache.
uint32_t SiteIndexForCallsiteSlow(tw_callsite* callsite, const char* file, int line,
                                  const char* category, const char* label, int repo_id)
    __attribute__((noinline));

// Site index for C arguments whose strings may change after the call (content-keyed).
uint32_t SiteIndexForContent(ThreadState* ts, const char* file, int line, const char* category,
                             const char* label, int repo_id);

// Site index through a literal call site's cache.
inline uint32_t SiteIndexForCallsite(tw_callsite* callsite, const char* file, int line,
                                     const char* category, const char* label, int repo_id) {
  const uint64_t repo_tag = repo_id < 0 ? 0 : static_cast<uint64_t>(repo_id) + 1;
  // acquire, pairs with SiteIndexForCallsiteSlow's release: the registry entry it names.
  const uint64_t word = __atomic_load_n(&callsite->word, __ATOMIC_ACQUIRE);
  if (__builtin_expect(word == kCallsiteFiltered, 0)) return kFilteredSite;
  if (__builtin_expect(word != 0 && (word >> 32) == repo_tag, 1)) {
    return static_cast<uint32_t>(word) - 1;
  }
  return SiteIndexForCallsiteSlow(callsite, file, line, category, label, repo_id);
}

// The site ID of registry entry `index` in the thread's generation (interning on a miss).
inline uint64_t GenSiteId(ThreadState* ts, uint32_t index) {
  // acquire, pairs with GenSiteIdLocked's release: the site record is in the table.
  const uint64_t word = g_site_registry->Get(index).gen_id.load(std::memory_order_acquire);
  if (__builtin_expect(word != 0 && (word >> 32) == (ts->gen.get() & 0xffffffffu), 1)) {
    return word & 0xffffffffu;
  }
  return GenSiteIdSlow(ts, index);
}

// Whether registry entry `index` is filtered out by TRACEWIRE_CATEGORIES (kFilteredSite is).
bool SiteFiltered(uint32_t index);

// Records `value` as a new string of the thread's generation; returns its ID.
uint64_t UniqueString(ThreadState* ts, absl::string_view value);

// Captures and records a stack for events of `type` when enabled by TRACEWIRE_STACKS;
// writes a stack_ref event before the event. Requires BeginEvent.
void MaybeRecordStack(ThreadState* ts, format::EventType type);

// True when the region hot path (region_at_callsite.cc) may skip what it does not test
// per event: g_need_fence is false, no stack is captured for region_enter or
// region_leave, and the clock is the counter. Set by the start of tracing (lifecycle.cc)
// once all three are decided, before any event.
extern std::atomic<bool> g_region_fast_path;

// Whether stacks are captured for `type` (cheap check).
extern uint64_t g_stack_event_mask[4];
inline bool WantStack(format::EventType type) {
  const unsigned t = static_cast<unsigned>(type);
  return (g_stack_event_mask[t >> 6] >> (t & 63)) & 1;
}

// Session-wide operations (recorder.cc).
struct Session;
// The process's Session, allocated at the first call (sets g_site_registry).
Session& GetSession();

// Interns what every generation needs before any event (the sid, the signal site).
// Requires tables_mu.
void OpenGenerationLocked(Session& s, uint64_t gen);
// Interns the command name and hierarchy (tw_cmd_name) in generation `gen`'s string table,
// so that its process_info can name them. Requires output_mu and tables_mu.
void InternCommandNameLocked(Session& s, uint64_t gen);

// Closes the current generation and writes it (or keeps it in the flight recorder's
// ring); with `final`, tracing stops afterwards.
void AdvanceGeneration(bool final);
// The same with advance_mu held by the caller. With `even_if_empty`, a generation is closed
// even if nothing was recorded since the last cut (it holds the threads' re-statements).
void AdvanceGenerationLocked(bool final, bool even_if_empty = false);

// Called from fatal signal handlers: records `signal` and writes what is buffered.
void EmergencyFlush(int signo);

// Records the exit code for the atexit event (no Session needed: also called untraced).
void SetExitCode(int code);
// The exit code SetExitCode recorded last (0 if none).
int ExitCode();

// Thread naming and lifecycle.
void NameCurrentThread(ThreadState* ts, absl::string_view base_name);
void DetachCurrentThread(bool emit_exit_events, const char* file, int line);

// Process identity updates (cmd_name) re-stated in process_info.
void SetCommandName(absl::string_view name, absl::string_view hierarchy);

// Timers and counters (recorder.cc).
int DefineTimer(const char* category, const char* name, bool per_thread);
int DefineCounter(const char* category, const char* name, bool per_thread);

// Next ids handed out by the runtime.
int NextChildId();
int NextExecId();
int NextRepoId();

// Whether argv/def_param values are redacted.
bool RedactionEnabled();

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_RECORDER_H_
