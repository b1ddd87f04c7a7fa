// Placement of the code every process runs at start-up, traced or not (tw_initialize_clock,
// tw_initialize with TRACEWIRE unset, tw_exit). Spread over the runtime's object files,
// that code sits in as many separate parts of the program's text, and the process faults
// each one in (the kernel maps up to 64 KiB of cached file around a faulting address). In
// one named section the linkers' default scripts place it together (.text.hot.*, before
// the rest of .text, next to the program's main and static constructors).
#ifndef TRACEWIRE_RUNTIME_STARTUP_PATH_H_
#define TRACEWIRE_RUNTIME_STARTUP_PATH_H_

// Marks a function definition as part of the start-up path (not for inline functions).
#define TRACEWIRE_STARTUP_PATH __attribute__((section(".text.hot.tracewire_startup")))

// The data the start-up path (traced or not) reads or writes, names it passes to getenv()
// included, and the few words every event reads: in .data, which a program's link ends
// with the libraries' data, next to where .bss starts. That page is written at exec (the kernel zeroes the rest of it), so these cost no page
// fault of their own, where .bss (zero pages, one fault each in a fresh process) and
// .rodata (a fault per 64 KiB window the first time it is read) would each cost one.
// For writable definitions only (string constants go in as char arrays).
#define TRACEWIRE_STARTUP_DATA __attribute__((section(".data.tracewire_startup")))

#endif  // TRACEWIRE_RUNTIME_STARTUP_PATH_H_
