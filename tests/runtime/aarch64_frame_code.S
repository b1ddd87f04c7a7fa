// Instruction words for interrupted_frame_test, assembled by the aarch64 assembler (never
// executed): tw_test_outside_own_frame[] holds instructions a function runs while x29 is
// still its caller's frame pointer, tw_test_inside_own_frame[] instructions of a body that
// must not be taken for those. aarch64 only.
#if defined(__aarch64__)
        .arch   armv8.5-a
        .text
        .p2align 2
        .globl  tw_test_outside_own_frame
tw_test_outside_own_frame:
        paciasp
        pacibsp
        bti     c
        bti     j
        bti     jc
        stp     x29, x30, [sp, #-48]!
        stp     x29, x30, [sp, #-16]!
        sub     sp, sp, #4096
        sub     sp, sp, #32
        stp     x29, x30, [sp, #16]
        add     x29, sp, #16
        mov     x29, sp
        autiasp
        autibsp
        ret
        retaa
        retab
        .globl  tw_test_outside_own_frame_end
tw_test_outside_own_frame_end:
        .globl  tw_test_inside_own_frame
tw_test_inside_own_frame:
        stp     x19, x20, [sp, #16]
        ldp     x29, x30, [sp], #48
        ldp     x29, x30, [sp, #16]
        add     x0, x0, #1
        add     x29, x0, #16
        sub     x0, sp, #32
        mov     x29, x0
        stp     x29, x19, [sp, #-16]!
        ldr     w1, [x2], #4
        bl      tw_test_inside_own_frame
        blr     x3
        ret     x1
        nop
        .globl  tw_test_inside_own_frame_end
tw_test_inside_own_frame_end:
#endif
        .section .note.GNU-stack,"",@progbits
