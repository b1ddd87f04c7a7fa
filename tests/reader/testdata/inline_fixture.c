/* A program with full DWARF for the symbolizer's inline-chain test: its call to
 * fixture_leaf sits in fixture_inlined, which the compiler inlines into fixture_outer. It
 * prints the return address of that call and the process's load bias, and exits. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>

static unsigned long load_bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  load_bias = (unsigned long)info->dlpi_addr; /* the executable comes first */
  return 1;
}

__attribute__((noinline)) static void fixture_leaf(void) {
  printf("%lx %lx\n", (unsigned long)__builtin_return_address(0), load_bias);
}

static inline __attribute__((always_inline)) void fixture_inlined(void) {
  fixture_leaf(); /* INLINED_CALL_LINE */
  __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void fixture_outer(void) {
  fixture_inlined(); /* OUTER_CALL_LINE */
  __asm__ volatile("" ::: "memory");
}

int main(void) {
  dl_iterate_phdr(first_object, NULL);
  fixture_outer();
  return 0;
}
