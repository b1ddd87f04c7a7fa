// The registers a CPU sample walks from, and on aarch64 the instructions during which the
// interrupted function's caller is only in the link register.
#include "runtime/interrupted_frame.h"

#include <ucontext.h>

#include <cstdint>

#include "gtest/gtest.h"

extern "C" const uint32_t tw_test_outside_own_frame[];
extern "C" const uint32_t tw_test_outside_own_frame_end[];
extern "C" const uint32_t tw_test_inside_own_frame[];
extern "C" const uint32_t tw_test_inside_own_frame_end[];

namespace tracewire::runtime {
namespace {

#if defined(__aarch64__)
// Every entry and exit instruction the assembler produces is recognized (prologues with and
// without branch protection, a large frame's allocation, returns with authentication).
TEST(InterruptedFrameTest, EntryAndExitInstructionsLeaveTheCallerInTheLinkRegister) {
  int count = 0;
  for (const uint32_t* p = tw_test_outside_own_frame; p < tw_test_outside_own_frame_end; ++p) {
    EXPECT_TRUE(RunsOutsideOwnFrameAarch64(*p))
        << "instruction " << count << ": " << std::hex << *p;
    ++count;
  }
  EXPECT_EQ(count, 17);
}

// A body's instructions, x29 and x30 in them included, are not taken for entry or exit.
TEST(InterruptedFrameTest, BodyInstructionsAreNot) {
  int count = 0;
  for (const uint32_t* p = tw_test_inside_own_frame; p < tw_test_inside_own_frame_end; ++p) {
    EXPECT_FALSE(RunsOutsideOwnFrameAarch64(*p))
        << "instruction " << count << ": " << std::hex << *p;
    ++count;
  }
  EXPECT_EQ(count, 13);
}

// With pc at a `ret`, the caller is the link register; with pc in a body, none is taken.
TEST(InterruptedFrameTest, TheCallerComesFromTheLinkRegisterOnlyOutsideTheFrame) {
  InterruptedFrame frame;
  frame.lr = 0x400123;
  frame.pc = reinterpret_cast<uintptr_t>(tw_test_outside_own_frame + 14);  // ret
  EXPECT_EQ(CallerOutsideFrameRecords(frame), 0x400123u);
  frame.pc = reinterpret_cast<uintptr_t>(tw_test_inside_own_frame + 3);  // add
  EXPECT_EQ(CallerOutsideFrameRecords(frame), 0u);
  EXPECT_EQ(StripReturnAddress(0x002c'0000'0040'0123u), 0x400123u);  // PAC bits dropped
}
#else
// Where the call instruction pushes the return address, the frame chain holds every caller.
TEST(InterruptedFrameTest, NoCallerOutsideTheFrameChain) {
  InterruptedFrame frame;
  frame.pc = reinterpret_cast<uintptr_t>(&CallerOutsideFrameRecords);
  frame.lr = 0x400123;
  EXPECT_EQ(CallerOutsideFrameRecords(frame), 0u);
  EXPECT_EQ(StripReturnAddress(0x400123u), 0x400123u);
}
#endif

// The registers come from the signal context: a context saved here holds this thread's
// stack pointer and a pc in this program.
TEST(InterruptedFrameTest, RegistersComeFromTheContext) {
  ucontext_t context;
  ASSERT_EQ(getcontext(&context), 0);
  const InterruptedFrame frame = InterruptedFrameOf(&context);
  int local = 0;
  const auto here = reinterpret_cast<uintptr_t>(&local);
  EXPECT_NE(frame.pc, 0u);
  EXPECT_LT(frame.sp > here ? frame.sp - here : here - frame.sp, 1u << 16);
  EXPECT_NE(frame.fp, 0u);
}

}  // namespace
}  // namespace tracewire::runtime
