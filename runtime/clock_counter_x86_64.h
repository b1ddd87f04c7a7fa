// The x86-64 trace counter: the time-stamp counter (rdtsc), used when the CPU reports it
// invariant (constant rate across frequency changes and sleep states).
#ifndef TRACEWIRE_RUNTIME_CLOCK_COUNTER_X86_64_H_
#define TRACEWIRE_RUNTIME_CLOCK_COUNTER_X86_64_H_

#include <cpuid.h>
#include <x86intrin.h>

#include <cstdint>

namespace tracewire::runtime::counter {

// This architecture has a counter that user space reads without a system call.
inline constexpr bool kAvailable = true;

// Reads the counter: one rdtsc, not ordered against the code around it (the TSC is
// consistent across cores and never goes backwards on one thread).
inline uint64_t Read() { return __rdtsc(); }

// True when the counter can serve as the trace clock: an invariant TSC (CPUID
// 0x80000007, EDX bit 8). Executes CPUID: call only when tracing starts.
inline bool Usable() {
  unsigned eax, ebx, ecx, edx;
  if (__get_cpuid(0x80000000, &eax, &ebx, &ecx, &edx) == 0 || eax < 0x80000007) return false;
  __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx);
  return (edx & (1u << 8)) != 0;
}

// The counter's rate as the hardware states it, in ticks per second; 0 when the hardware
// does not say (the TSC's rate is only known by calibration).
inline uint64_t NominalRate() { return 0; }

}  // namespace tracewire::runtime::counter

#endif  // TRACEWIRE_RUNTIME_CLOCK_COUNTER_X86_64_H_
