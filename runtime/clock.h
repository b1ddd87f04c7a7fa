// The trace clock: the architecture's counter when it is usable (x86-64: the invariant
// TSC, one rdtsc per event; aarch64: CNTVCT_EL0), otherwise CLOCK_MONOTONIC in
// nanoseconds (always so on other architectures, and with TRACEWIRE_CLOCK=monotonic). The
// counter is chosen at compile time, one header per architecture (clock_counter_*.h). Its
// rate is calibrated against CLOCK_MONOTONIC over the life of the process and published in
// every generation's clock_sync record.
#ifndef TRACEWIRE_RUNTIME_CLOCK_H_
#define TRACEWIRE_RUNTIME_CLOCK_H_

#include <time.h>

#include <cstdint>

#include "format/generation_records.h"

#if defined(TRACEWIRE_GENERIC_CLOCK) || !(defined(__x86_64__) || defined(__aarch64__))
#include "runtime/clock_counter_generic.h"
#elif defined(__x86_64__)
#include "runtime/clock_counter_x86_64.h"
#else
#include "runtime/clock_counter_aarch64.h"
#endif

namespace tracewire::runtime {

// True when the trace clock is the architecture's counter. Set once by InitClock().
extern bool g_clock_is_counter;

// Reads the trace clock.
inline uint64_t ReadTicks() {
  if (counter::kAvailable && __builtin_expect(g_clock_is_counter, 1)) return counter::Read();
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + ts.tv_nsec;
}

// CLOCK_MONOTONIC in nanoseconds.
uint64_t MonotonicNanos();

// Chooses the clock source (the counter if counter::Usable() and TRACEWIRE_CLOCK is not
// "monotonic"), so that ReadTicks() can be used. Idempotent. Called only when tracing
// starts: on x86-64 it executes CPUID.
void InitClockSource();

// The program's start instant, read before the trace clock is chosen (tracing may yet turn
// out to be off) and as cheaply as an untraced process can: the counter, unless
// TRACEWIRE_CLOCK=monotonic or the architecture has none. Neither CPUID (a VM exit under
// virtualization, ~7 us each on the machines we measured) nor a first CLOCK_MONOTONIC read (which
// faults in the vDSO's clock pages, ~30 us in a VM) is paid by a process that does not trace.
struct StartInstant {
  uint64_t ticks = 0;
  bool is_counter = false;
};

// Reads a StartInstant now.
StartInstant ReadStartInstant();

// `instant` on the trace clock. Requires InitClockSource(). When the instant was read on
// the other clock (the counter, on a CPU where it is not usable), the instant cannot be
// converted and the current time is returned instead.
uint64_t TraceTicksAt(const StartInstant& instant);

// InitClockSource(), and records the calibration origin (the trace clock and
// CLOCK_MONOTONIC read together). Idempotent. Called when tracing starts.
void InitClock();

// A clock_sync snapshot taken now: trace clock, monotonic and wall clock read together,
// the rate calibrated since InitClock() (spinning until at least 1 ms has passed so the
// rate is accurate, unless the hardware states the counter's rate: then that rate serves
// until 1 ms has passed), and the local UTC offset. With `signal_safe`, the UTC offset of the
// previous snapshot is reused (localtime_r is not async-signal-safe).
format::ClockSync TakeClockSync(bool signal_safe = false);

// Converts a tick span to nanoseconds with the current calibration (for timers shown to
// the user at runtime; recorded values stay in ticks).
uint64_t TicksPerSecond();

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_CLOCK_H_
