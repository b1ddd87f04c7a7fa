#include "runtime/interrupted_frame.h"

#include <ucontext.h>

namespace tracewire::runtime {
namespace {

// An aarch64 instruction pattern: the instruction matches if (word & mask) == value.
struct InstructionPattern {
  uint32_t mask;
  uint32_t value;
};

// The instructions of a function's entry and exit during which x29 is still (or again) the
// caller's frame pointer, register fields fixed and immediates masked out.
constexpr InstructionPattern kOutsideOwnFrame[] = {
    {0xFFFFFFFF, 0xD503233F},  // paciasp
    {0xFFFFFFFF, 0xD503237F},  // pacibsp
    {0xFFFFFF3F, 0xD503241F},  // bti, bti c, bti j, bti jc
    {0xFFC07FFF, 0xA9807BFD},  // stp x29, x30, [sp, #-n]!   (the record's store)
    {0xFFC07FFF, 0xA9007BFD},  // stp x29, x30, [sp, #n]     (after sub sp)
    {0xFF8003FF, 0xD10003FF},  // sub sp, sp, #n             (a large frame's allocation)
    {0xFF8003FF, 0x910003FD},  // add x29, sp, #n; mov x29, sp (x29 not yet written)
    {0xFFFFFFFF, 0xD50323BF},  // autiasp                    (after the record's reload)
    {0xFFFFFFFF, 0xD50323FF},  // autibsp
    {0xFFFFFFFF, 0xD65F03C0},  // ret
    {0xFFFFFFFF, 0xD65F0BFF},  // retaa
    {0xFFFFFFFF, 0xD65F0FFF},  // retab
};

}  // namespace

bool RunsOutsideOwnFrameAarch64(uint32_t instruction) {
  for (const InstructionPattern& p : kOutsideOwnFrame) {
    if ((instruction & p.mask) == p.value) return true;
  }
  return false;
}

InterruptedFrame InterruptedFrameOf(const void* context) {
  InterruptedFrame r;
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  r.pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  r.fp = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RBP]);
  r.sp = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
  r.pc = static_cast<uintptr_t>(uc->uc_mcontext.pc);
  r.fp = static_cast<uintptr_t>(uc->uc_mcontext.regs[29]);
  r.lr = StripReturnAddress(static_cast<uintptr_t>(uc->uc_mcontext.regs[30]));
  r.sp = static_cast<uintptr_t>(uc->uc_mcontext.sp);
#else
  (void)uc;
#endif
  return r;
}

uintptr_t CallerOutsideFrameRecords(const InterruptedFrame& frame) {
#if defined(__aarch64__)
  if (frame.lr == 0 || frame.pc == 0 || (frame.pc & 3) != 0) return 0;
  const uint32_t instruction = *reinterpret_cast<const volatile uint32_t*>(frame.pc);
  return RunsOutsideOwnFrameAarch64(instruction) ? frame.lr : 0;
#else
  (void)frame;
  return 0;
#endif
}

}  // namespace tracewire::runtime
