// The aarch64 trace counter: the virtual count register CNTVCT_EL0, whose rate the
// firmware writes into CNTFRQ_EL0 (tens of MHz on most cores, 1 GHz from ARMv8.6). Linux
// lets user space read both (or traps and emulates the read on cores with errata).
#ifndef TRACEWIRE_RUNTIME_CLOCK_COUNTER_AARCH64_H_
#define TRACEWIRE_RUNTIME_CLOCK_COUNTER_AARCH64_H_

#include <cstdint>

namespace tracewire::runtime::counter {

// This architecture has a counter that user space reads without a system call.
inline constexpr bool kAvailable = true;

// Reads the counter. The isb keeps the read after the instructions before it: the
// architecture lets a CNTVCT_EL0 read execute early, out of order even with an earlier
// read, and the batches' delta timestamps need each thread's times never to go back.
inline uint64_t Read() {
  uint64_t ticks;
  asm volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(ticks)::"memory");
  return ticks;
}

// The counter's rate as CNTFRQ_EL0 states it, in ticks per second (0 if the firmware left
// it unset).
inline uint64_t NominalRate() {
  uint64_t rate;
  asm volatile("mrs %0, cntfrq_el0" : "=r"(rate));
  return rate;
}

// True when the counter can serve as the trace clock: the firmware gave it a rate.
inline bool Usable() { return NominalRate() != 0; }

}  // namespace tracewire::runtime::counter

#endif  // TRACEWIRE_RUNTIME_CLOCK_COUNTER_AARCH64_H_
