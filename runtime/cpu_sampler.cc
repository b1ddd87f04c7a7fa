#include "runtime/cpu_sampler.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "format/constants.h"
#include "runtime/interrupted_frame.h"
#include "runtime/recorder.h"
#include "runtime/session.h"

namespace tracewire::runtime {
namespace {

constexpr int kSampleSignal = SIGPROF;
// Words of a sample record besides its frames: time, weight and frame count.
constexpr uint64_t kRecordHeaderWords = 3;

std::atomic<bool> g_sampling{false};
uint32_t g_hz = 0;
uint64_t g_ring_words = 0;

// Ring capacity: about two generations' samples of 32 frames at the rate, between 32 KiB
// and 8 MiB per thread (a CPU-bound thread that records no event is drained only at the
// generation cut).
uint64_t RingWords(uint32_t hz, uint64_t generation_ms) {
  const uint64_t samples = std::max<uint64_t>(1, hz * std::max<uint64_t>(generation_ms, 1) / 1000);
  const uint64_t wanted = 2 * samples * (kRecordHeaderWords + 32);
  uint64_t words = uint64_t{1} << 12;
  while (words < wanted && words < (uint64_t{1} << 20)) words <<= 1;
  return words;
}

// Walks the frame-pointer chain of the interrupted code into pcs[0..max). Every load is
// checked first: 8-byte aligned, inside [sp, stack_high) of the thread's own stack (pages
// between the stack pointer and the stack's top are mapped), and each frame above the
// previous one, so the walk never faults and always ends, whatever a frame pointer holds
// (code built without frame pointers uses it as a general register). pcs[0] is the
// interrupted instruction + 1, so that every frame reads as a return address (readers
// look up pc - 1). On aarch64 a frame record is {x29, x30}: while the interrupted function
// has not yet pushed its own (or has popped it), its caller is only in the link register,
// and is inserted from there (CallerOutsideFrameRecords()); saved return addresses lose
// their pointer-authentication bits. Not instrumented: the walk reads other frames'
// memory, redzones included.
__attribute__((no_sanitize("address", "thread", "undefined"))) int WalkStack(
    const InterruptedFrame& regs, const SampleRing& ring, uint64_t* pcs, int max) {
  if (regs.pc == 0) return 0;
  int n = 0;
  pcs[n++] = regs.pc + 1;
  const uintptr_t link_caller = CallerOutsideFrameRecords(regs);
  if (link_caller != 0 && n < max) pcs[n++] = link_caller;
  if (regs.sp < ring.stack_low || regs.sp >= ring.stack_high) return n;
  uintptr_t low = regs.sp;
  uintptr_t fp = regs.fp;
  while (n < max) {
    if ((fp & 7) != 0 || fp < low || fp > ring.stack_high - 2 * sizeof(uintptr_t)) break;
    const auto* frame = reinterpret_cast<const uintptr_t*>(fp);
    const uintptr_t next = frame[0];
    const uintptr_t ret = StripReturnAddress(frame[1]);
    if (ret == 0) break;
    // A `sub sp` or `ret` also runs where the record is the function's own: its return
    // address is then the link register's, taken once.
    if (!(n == 2 && link_caller == ret)) pcs[n++] = ret;
    if (next <= fp) break;
    low = fp + 2 * sizeof(uintptr_t);
    fp = next;
  }
  return n;
}

// The SIGPROF handler: async-signal-safe (no lock, no allocation, no call but the clock).
void SampleHandler(int, siginfo_t* info, void* context) {
  if (info == nullptr || info->si_code != SI_TIMER) return;  // not our timer's signal
  ThreadState* ts = t_state;
  if (ts == nullptr) return;
  SampleRing* ring = ts->samples;
  // Both relaxed: flags that only stop recording; no data is read on their word (stopped
  // is set by this thread itself; g_sampling publishes nothing).
  if (ring == nullptr || ring->stopped.load(std::memory_order_relaxed) ||
      !g_sampling.load(std::memory_order_relaxed)) {
    return;
  }
  const int saved_errno = errno;
  uint64_t pcs[format::kMaxFramesPerStack];
  const int n = WalkStack(InterruptedFrameOf(context), *ring, pcs,
                          static_cast<int>(format::kMaxFramesPerStack));
  const uint64_t now = ReadTicks();
  const uint64_t capacity = ring->mask + 1;
  // relaxed: head is written only by this handler (the ring's one producer).
  const uint64_t head = ring->head.load(std::memory_order_relaxed);
  // acquire, pairs with the consumer's release of tail: its reads of the freed words are
  // done before they are overwritten here.
  const uint64_t tail = ring->tail.load(std::memory_order_acquire);
  const uint64_t need = kRecordHeaderWords + static_cast<uint64_t>(n);
  // The kernel checks CPU-time timers at its scheduler tick: periods that expired since the
  // last signal without one of their own are its overrun, and this sample stands for them.
  const uint64_t weight = 1 + static_cast<uint64_t>(info->si_overrun > 0 ? info->si_overrun : 0);
  if (n == 0 || capacity - (head - tail) < need) {
    ring->lost.fetch_add(1, std::memory_order_relaxed);  // relaxed: a count, publishes nothing
  } else {
    ring->words[head & ring->mask] = now;
    ring->words[(head + 1) & ring->mask] = weight;
    ring->words[(head + 2) & ring->mask] = static_cast<uint64_t>(n);
    for (int i = 0; i < n; ++i) {
      ring->words[(head + kRecordHeaderWords + i) & ring->mask] = pcs[i];
    }
    // release, pairs with the consumer's acquire of head: the words are visible before
    // the record is (without it, ThreadSanitizer reports the drain's reads as a race).
    ring->head.store(head + need, std::memory_order_release);
  }
  // The thread's next event takes the slow path, which drains the ring.
  ts->limit.set(nullptr);
  errno = saved_errno;
}

// The calling thread's stack: [low, high).
void ThreadStackBounds(uintptr_t* low, uintptr_t* high) {
  pthread_attr_t attr;
  void* base = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
  }
  *low = reinterpret_cast<uintptr_t>(base);
  *high = *low + size;
}

}  // namespace

bool StartCpuProfile(Session& s, uint32_t hz) {
  if (hz == 0) return false;
  struct sigaction current;
  if (sigaction(kSampleSignal, nullptr, &current) == 0 &&
      ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL)) {
    fputs(
        "warning: tracewire: SIGPROF has a handler already (another profiler?); "
        "TRACEWIRE_CPU_PROFILE is ignored\n",
        stderr);
    return false;
  }
  struct sigaction action {};
  action.sa_sigaction = SampleHandler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  if (sigaction(kSampleSignal, &action, nullptr) != 0) return false;
  g_hz = std::min(hz, kMaxCpuProfileHz);
  g_ring_words = RingWords(g_hz, s.generation_ms);
  g_sampling.store(true, std::memory_order_relaxed);  // relaxed: set before any thread attaches
  return true;
}

// relaxed (both): a flag that only stops recording, publishes nothing.
bool CpuProfileOn() { return g_sampling.load(std::memory_order_relaxed); }

void StopCpuProfile() { g_sampling.store(false, std::memory_order_relaxed); }

void AttachSampler(ThreadState* ts) {
  if (!CpuProfileOn() || ts->samples != nullptr) return;
  const size_t bytes = g_ring_words * sizeof(uint64_t);
  // Mapped, not allocated: untouched pages cost nothing, and the ring is never moved.
  void* words = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (words == MAP_FAILED) return;
  auto* ring = new SampleRing;
  ring->words = static_cast<uint64_t*>(words);
  ring->mask = g_ring_words - 1;
  ThreadStackBounds(&ring->stack_low, &ring->stack_high);
  struct sigevent event {};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = kSampleSignal;
  event._sigev_un._tid = static_cast<pid_t>(ts->tid);
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &ring->timer) != 0) {
    munmap(words, bytes);
    delete ring;
    return;
  }
  ring->has_timer = true;
  // The handler may run from the first tick on: the ring is complete before it is seen
  // (signal fences: the handler runs on this thread, only the compiler may reorder).
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ts->samples = ring;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const uint64_t period_ns = 1'000'000'000u / g_hz;
  itimerspec spec{};
  spec.it_interval.tv_sec = static_cast<time_t>(period_ns / 1'000'000'000u);
  spec.it_interval.tv_nsec = static_cast<long>(period_ns % 1'000'000'000u);
  spec.it_value = spec.it_interval;
  timer_settime(ring->timer, 0, &spec, nullptr);
}

void StopSampler(ThreadState* ts) {
  SampleRing* ring = ts->samples;
  if (ring == nullptr) return;
  // relaxed + signal fence: only this thread's own handler reads it (same thread).
  ring->stopped.store(true, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  if (ring->has_timer) {
    timer_delete(ring->timer);
    ring->has_timer = false;
  }
}

void FreeSampler(ThreadState* ts) {
  SampleRing* ring = ts->samples;
  if (ring == nullptr) return;
  StopSampler(ts);
  ts->samples = nullptr;
  std::atomic_signal_fence(std::memory_order_seq_cst);  // as in AttachSampler
  munmap(ring->words, (ring->mask + 1) * sizeof(uint64_t));
  delete ring;
}

bool SamplesPending(const ThreadState* ts) {
  const SampleRing* ring = ts->samples;
  if (ring == nullptr) return false;
  // acquire on head as in the drain; tail and lost: the consumer's own or a bare count.
  return ring->head.load(std::memory_order_acquire) != ring->tail.load(std::memory_order_relaxed) ||
         ring->lost.load(std::memory_order_relaxed) != 0;
}

void DrainSamplesLocked(Session& s, ThreadState* ts, bool tables_locked) {
  SampleRing* ring = ts->samples;
  ts->limit.set(BatchLimit(ts));
  if (ring == nullptr) return;
  // acquire, pairs with the handler's release of head: the records' words are read after.
  const uint64_t head = ring->head.load(std::memory_order_acquire);
  // relaxed: tail is written only by the consumer (one at a time, handed over under locks).
  uint64_t tail = ring->tail.load(std::memory_order_relaxed);
  const uint64_t lost = ring->lost.exchange(0, std::memory_order_relaxed);  // a count
  if (head == tail && lost == 0) return;
  std::unique_lock<std::mutex> tables_lock(s.tables_mu, std::defer_lock);
  if (!tables_locked) tables_lock.lock();
  uintptr_t pcs[format::kMaxFramesPerStack];
  const uint64_t gen = ts->gen.get();
  // Each record is written at its own time, or just after the thread's previous event if
  // it was taken inside that event (the times of a thread strictly increase).
  auto stamp = [ts](uint64_t time) {
    const uint64_t last = ts->last_time.get();
    const uint64_t now = time > last ? time : last + 1;
    ts->last_time.set(now);
    return now - last;
  };
  while (tail != head) {
    const uint64_t time = ring->words[tail & ring->mask];
    const uint64_t weight = ring->words[(tail + 1) & ring->mask];
    const uint64_t n =
        std::min<uint64_t>(ring->words[(tail + 2) & ring->mask], format::kMaxFramesPerStack);
    for (uint64_t i = 0; i < n; ++i) {
      pcs[i] = static_cast<uintptr_t>(ring->words[(tail + kRecordHeaderWords + i) & ring->mask]);
    }
    tail += kRecordHeaderWords + n;
    const uint64_t stack_id = InternStackLocked(s, gen, absl::MakeConstSpan(pcs, n));
    if (ts->pos.get() > BatchLimit(ts)) AppendBatchLocked(s, ts);
    WriteEvent(ts, EventType::kCpuSample, {stamp(time), stack_id, weight});
  }
  // release, pairs with the handler's acquire of tail: the words are read before reuse.
  ring->tail.store(tail, std::memory_order_release);
  if (lost != 0) {
    if (ts->pos.get() > BatchLimit(ts)) AppendBatchLocked(s, ts);
    WriteEvent(ts, EventType::kCpuSamplesLost, {stamp(ReadTicks()), lost});
  }
  if (ts->pos.get() > BatchLimit(ts)) AppendBatchLocked(s, ts);
}

void RearmSampleLimit(ThreadState* ts) {
  if (ts->samples == nullptr) return;
  FullFence();  // the limit's reset before the look at the ring (the handler: ring, then limit)
  if (SamplesPending(ts)) ts->limit.set(nullptr);
}

}  // namespace tracewire::runtime
