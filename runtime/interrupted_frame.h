// The registers a CPU sample starts its stack walk from, read from the signal context, and
// what each architecture's calling convention says about the interrupted function's caller.
#ifndef TRACEWIRE_RUNTIME_INTERRUPTED_FRAME_H_
#define TRACEWIRE_RUNTIME_INTERRUPTED_FRAME_H_

#include <cstdint>

namespace tracewire::runtime {

// The interrupted code's pc, frame pointer (rbp; x29), stack pointer and, on aarch64, link
// register (x30; 0 elsewhere).
struct InterruptedFrame {
  uintptr_t pc = 0;
  uintptr_t fp = 0;
  uintptr_t sp = 0;
  uintptr_t lr = 0;
};

// The registers of a signal handler's `ucontext_t` (its third argument). Async-signal-safe.
InterruptedFrame InterruptedFrameOf(const void* ucontext);

// A return address as code can jump to it: on aarch64 without the pointer-authentication
// code that -mbranch-protection signs saved return addresses with (the bits above the 48
// bits of a user address); unchanged elsewhere.
inline uintptr_t StripReturnAddress(uintptr_t address) {
#if defined(__aarch64__)
  return address & ((uintptr_t{1} << 48) - 1);
#else
  return address;
#endif
}

// True if `instruction` (an aarch64 instruction word) is one a function executes while
// x29 still holds its caller's frame record, its caller being only in x30: the entry's
// pointer-authentication and branch-target instructions, the frame record's store and the
// instructions that allocate the frame or set x29, and the return (with its
// authentication) after the record was reloaded.
bool RunsOutsideOwnFrameAarch64(uint32_t instruction);

// The interrupted function's caller when the frame-record chain does not hold it: on
// aarch64, the link register when the instruction at pc is one of
// RunsOutsideOwnFrameAarch64()'s; 0 otherwise (and always on other architectures, whose
// call instruction pushes the return address on the stack). Reads the instruction at pc
// (mapped: it was executing). Async-signal-safe.
uintptr_t CallerOutsideFrameRecords(const InterruptedFrame& frame);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_INTERRUPTED_FRAME_H_
