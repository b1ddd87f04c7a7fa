// tw_test_spin_with_garbage_frame_pointer(iterations): spins with the frame-pointer
// register (rbp) holding values that are not frame pointers — null, odd, a kernel
// address, an address just below the stack pointer, the stack pointer itself — as code
// built without frame pointers may leave it, so that a CPU-profile sample taken meanwhile
// must walk (or refuse to walk) a chain that does not exist. x86-64 (rbp) and aarch64 (x29).
#if defined(__x86_64__)
        .text
        .globl  tw_test_spin_with_garbage_frame_pointer
        .type   tw_test_spin_with_garbage_frame_pointer, @function
tw_test_spin_with_garbage_frame_pointer:
        pushq   %rbp
        movq    %rdi, %rcx
1:
        movq    $0, %rbp
        movq    $1000, %rax
2:      decq    %rax
        jnz     2b
        movq    $0x7, %rbp
        movq    $1000, %rax
3:      decq    %rax
        jnz     3b
        movabsq $0xffffffff81000000, %rbp
        movq    $1000, %rax
4:      decq    %rax
        jnz     4b
        leaq    -4096(%rsp), %rbp
        movq    $1000, %rax
5:      decq    %rax
        jnz     5b
        movq    %rsp, %rbp
        movq    $1000, %rax
6:      decq    %rax
        jnz     6b
        decq    %rcx
        jnz     1b
        popq    %rbp
        ret
        .size   tw_test_spin_with_garbage_frame_pointer, .-tw_test_spin_with_garbage_frame_pointer
#elif defined(__aarch64__)
        .text
        .p2align 2
        .globl  tw_test_spin_with_garbage_frame_pointer
        .type   tw_test_spin_with_garbage_frame_pointer, %function
tw_test_spin_with_garbage_frame_pointer:
        stp     x29, x30, [sp, #-16]!
        mov     x1, x0
1:
        mov     x29, #0
        mov     x2, #1000
2:      subs    x2, x2, #1
        b.ne    2b
        mov     x29, #7
        mov     x2, #1000
3:      subs    x2, x2, #1
        b.ne    3b
        mov     x29, #0xffff000000000000
        mov     x2, #1000
4:      subs    x2, x2, #1
        b.ne    4b
        sub     x29, sp, #4096
        mov     x2, #1000
5:      subs    x2, x2, #1
        b.ne    5b
        mov     x29, sp
        mov     x2, #1000
6:      subs    x2, x2, #1
        b.ne    6b
        subs    x1, x1, #1
        b.ne    1b
        ldp     x29, x30, [sp], #16
        ret
        .size   tw_test_spin_with_garbage_frame_pointer, .-tw_test_spin_with_garbage_frame_pointer
#endif
        .section .note.GNU-stack,"",@progbits
