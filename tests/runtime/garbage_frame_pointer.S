// tw_test_spin_with_garbage_frame_pointer(iterations): spins with the frame-pointer
// register (rbp) holding values that are not frame pointers — null, odd, a kernel
// address, an address just below the stack pointer, the stack pointer itself — as code
// built without frame pointers may leave it, so that a CPU-profile sample taken meanwhile
// must walk (or refuse to walk) a chain that does not exist. x86-64 only.
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
#endif
        .section .note.GNU-stack,"",@progbits
