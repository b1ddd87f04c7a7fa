// The trace counter of any other 64-bit Linux (and of a build with
// TRACEWIRE_GENERIC_CLOCK defined): none; the trace clock is CLOCK_MONOTONIC in
// nanoseconds, read through the vDSO.
#ifndef TRACEWIRE_RUNTIME_CLOCK_COUNTER_GENERIC_H_
#define TRACEWIRE_RUNTIME_CLOCK_COUNTER_GENERIC_H_

#include <cstdint>

namespace tracewire::runtime::counter {

// No counter: ReadTicks() reads CLOCK_MONOTONIC.
inline constexpr bool kAvailable = false;

// Never called (kAvailable is false); 0.
inline uint64_t Read() { return 0; }

// False: the counter cannot serve as the trace clock.
inline bool Usable() { return false; }

// 0: no counter.
inline uint64_t NominalRate() { return 0; }

}  // namespace tracewire::runtime::counter

#endif  // TRACEWIRE_RUNTIME_CLOCK_COUNTER_GENERIC_H_
