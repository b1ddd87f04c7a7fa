// The trace clock: the TSC when it is invariant (one rdtsc per event), otherwise
// CLOCK_MONOTONIC in nanoseconds. Its rate is calibrated against CLOCK_MONOTONIC over the
// life of the process and published in every generation's clock_sync record.
#ifndef TRACEWIRE_RUNTIME_CLOCK_H_
#define TRACEWIRE_RUNTIME_CLOCK_H_

#include <time.h>
#include <x86intrin.h>

#include <cstdint>

#include "format/generation_records.h"

namespace tracewire::runtime {

// True when the trace clock is the TSC. Set once by InitClock().
extern bool g_clock_is_tsc;

// Reads the trace clock.
inline uint64_t ReadTicks() {
  if (__builtin_expect(g_clock_is_tsc, 1)) return __rdtsc();
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec;
}

// CLOCK_MONOTONIC in nanoseconds.
uint64_t MonotonicNanos();

// Chooses the clock source (the TSC if the CPU reports an invariant TSC and
// TRACEWIRE_CLOCK is not "monotonic"), so that ReadTicks() can be used. Idempotent.
// Called only when tracing starts: it executes CPUID.
void InitClockSource();

// The program's start instant, read before the trace clock is chosen (tracing may yet turn
// out to be off) and as cheaply as an untraced process can: the TSC, unless
// TRACEWIRE_CLOCK=monotonic. Neither CPUID (a VM exit under virtualization, ~7 us each on
// the machines we measured) nor a first CLOCK_MONOTONIC read (which faults in the vDSO's
// clock pages, ~30 us in a VM) is paid by a process that does not trace.
struct StartInstant {
  uint64_t ticks = 0;
  bool is_tsc = false;
};

// Reads a StartInstant now.
StartInstant ReadStartInstant();

// `instant` on the trace clock. Requires InitClockSource(). When the instant was read on
// the other clock (the TSC, on a CPU whose TSC is not invariant), the instant cannot be
// converted and the current time is returned instead.
uint64_t TraceTicksAt(const StartInstant& instant);

// InitClockSource(), and records the calibration origin (the trace clock and
// CLOCK_MONOTONIC read together). Idempotent. Called when tracing starts.
void InitClock();

// A clock_sync snapshot taken now: trace clock, monotonic and wall clock read together,
// the rate calibrated since InitClock() (spinning until at least 1 ms has passed so the
// rate is accurate), and the local UTC offset. With `signal_safe`, the UTC offset of the
// previous snapshot is reused (localtime_r is not async-signal-safe).
format::ClockSync TakeClockSync(bool signal_safe = false);

// Converts a tick span to nanoseconds with the current calibration (for timers shown to
// the user at runtime; recorded values stay in ticks).
uint64_t TicksPerSecond();

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_CLOCK_H_
