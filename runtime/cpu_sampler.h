// The CPU profile (TRACEWIRE_CPU_PROFILE=HZ): each traced thread has a timer on its own CPU
// time (timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID), so a thread is sampled
// in proportion to the CPU it uses and an idle one not at all. The timer's SIGPROF handler
// walks the interrupted code's frame pointers (bounded, inside the thread's stack, never
// faulting) and appends the time and the return addresses to the thread's SampleRing; it
// never writes the batch the interrupted code may be writing. It then lowers the thread's
// batch limit, so the thread's next event takes the slow path (FlushBatch), which moves the
// samples into the batch as cpu_sample events, each stack interned in the generation's
// stack table; the advancer moves those of threads that record no event at each generation
// cut. Samples the ring has no room for are counted and written as cpu_samples_lost.
//
// Ring protocol: one producer (the thread's own signal handler) and one consumer at a time
// (the thread inside an event, or whoever owns the thread's state: the advancer during the
// switch, the exiting thread under registry_mu). The producer publishes `head` with a
// release store after the words; the consumer frees words by a release store of `tail`.
#ifndef TRACEWIRE_RUNTIME_CPU_SAMPLER_H_
#define TRACEWIRE_RUNTIME_CPU_SAMPLER_H_

#include <time.h>

#include <atomic>
#include <cstdint>

namespace tracewire::runtime {

struct Session;
struct ThreadState;

// The highest sampling rate TRACEWIRE_CPU_PROFILE accepts (samples per CPU-second).
inline constexpr uint32_t kMaxCpuProfileHz = 10000;

// One thread's sample buffer: records of [time, weight, nframes, pc × nframes] words.
struct SampleRing {
  std::atomic<uint64_t> head{0};     // words written (the handler)
  std::atomic<uint64_t> tail{0};     // words consumed
  std::atomic<uint64_t> lost{0};     // samples dropped for want of room since the last drain
  std::atomic<bool> stopped{false};  // the handler records nothing more
  uint64_t mask = 0;                 // capacity in words - 1 (a power of two)
  uintptr_t stack_low = 0;           // the thread's stack: [stack_low, stack_high)
  uintptr_t stack_high = 0;
  timer_t timer{};
  bool has_timer = false;
  uint64_t* words = nullptr;
};

// Installs the SIGPROF handler and turns sampling on at `hz` for every thread attached
// from now on. Returns false (sampling stays off) if the program has its own SIGPROF
// disposition, with a warning on stderr. Called once, by Initialize, before any thread
// is attached.
bool StartCpuProfile(Session& s, uint32_t hz);

// Whether sampling is on (StartCpuProfile succeeded and StopCpuProfile was not called).
bool CpuProfileOn();

// Stops recording samples in every thread (at exit; the timers may still fire, their
// signals are ignored). Samples already taken are still drained.
void StopCpuProfile();

// Gives the calling thread, just attached as `ts`, its ring and starts its CPU-time
// timer. Nothing when sampling is off.
void AttachSampler(ThreadState* ts);

// Stops the calling thread's timer for good (its ring stays until FreeSampler).
void StopSampler(ThreadState* ts);

// Frees the ring of a detached thread (after its last drain).
void FreeSampler(ThreadState* ts);

// True if the thread's ring holds samples or a lost count. Safe from the consumer's side.
bool SamplesPending(const ThreadState* ts);

// Moves the thread's samples into its batch (cpu_sample events, then cpu_samples_lost if
// any were lost), interning their stacks in the thread's generation. Requires output_mu,
// being the ring's consumer (see above), and the thread's stream in the generation having
// begun (its re-statement or thread_start written). Takes tables_mu unless
// `tables_locked`.
void DrainSamplesLocked(Session& s, ThreadState* ts, bool tables_locked);

// After the batch limit was reset by someone other than the handler: lowers it again if
// samples are pending, so that a sample taken meanwhile is not left waiting behind later
// events.
void RearmSampleLimit(ThreadState* ts);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_CPU_SAMPLER_H_
