// Linked into libtracewire.a only, never into a program's own libstdc++: the exception
// allocation of the library's private libstdc++ (reached only if the runtime's own code
// throws, which it catches itself). libstdc++'s eh_alloc.o, which this replaces, has a
// static constructor that mallocs a ~70 KB emergency pool in every process at start-up,
// traced or not (the malloc initialization and the heap pages it touches). These
// functions allocate as eh_alloc.o does: malloc first, then, if malloc fails (throwing
// std::bad_alloc when memory is exhausted), a small fallback pool in zero-initialized
// memory that costs nothing until used; with neither, std::terminate, as eh_alloc.o does.
//
// The header sizes are those of libstdc++'s __cxa_refcounted_exception and
// __cxa_dependent_exception on x86-64 (unwind-cxx.h, unchanged since GCC 4.x; checked in
// tests/install/exception_memory_test.cc). On other targets nothing is defined here and
// libstdc++'s own eh_alloc.o is linked.
#include <cstddef>  // defines __GLIBCXX__

#if defined(__x86_64__) && defined(__GLIBCXX__)

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>

namespace {

constexpr size_t kExceptionHeader = 128;  // sizeof(__cxa_refcounted_exception)
constexpr size_t kDependentSize = 112;    // sizeof(__cxa_dependent_exception)

// The fallback: 16 slots of 1 KiB (an exception header plus a thrown object of up to
// 896 bytes), in .bss.
constexpr size_t kSlotSize = 1024;
constexpr int kSlots = 16;
alignas(16) unsigned char g_pool[kSlots][kSlotSize];
std::atomic<uint32_t> g_used{0};  // bit i: slot i is taken

void* PoolAllocate(size_t size) {
  if (size > kSlotSize) return nullptr;
  for (int i = 0; i < kSlots; ++i) {
    const uint32_t bit = uint32_t{1} << i;
    if ((g_used.fetch_or(bit, std::memory_order_acquire) & bit) == 0) return g_pool[i];
  }
  return nullptr;
}

// Frees `p` if it is a pool slot; false if it came from malloc.
bool PoolFree(void* p) {
  const auto* byte = static_cast<unsigned char*>(p);
  if (byte < &g_pool[0][0] || byte >= &g_pool[0][0] + sizeof(g_pool)) return false;
  const size_t slot = static_cast<size_t>(byte - &g_pool[0][0]) / kSlotSize;
  g_used.fetch_and(~(uint32_t{1} << slot), std::memory_order_release);
  return true;
}

void* Allocate(size_t size) {
  void* p = malloc(size);
  if (p == nullptr) p = PoolAllocate(size);
  if (p == nullptr) std::terminate();
  return p;
}

void Free(void* p) {
  if (!PoolFree(p)) free(p);
}

}  // namespace

extern "C" {

void* __cxa_allocate_exception(size_t thrown_size) noexcept {
  if (thrown_size > SIZE_MAX - kExceptionHeader) std::terminate();
  auto* p = static_cast<unsigned char*>(Allocate(thrown_size + kExceptionHeader));
  memset(p, 0, kExceptionHeader);
  return p + kExceptionHeader;
}

void __cxa_free_exception(void* thrown_object) noexcept {
  Free(static_cast<unsigned char*>(thrown_object) - kExceptionHeader);
}

void* __cxa_allocate_dependent_exception() noexcept {
  void* p = Allocate(kDependentSize);
  memset(p, 0, kDependentSize);
  return p;
}

void __cxa_free_dependent_exception(void* dependent) noexcept { Free(dependent); }

}  // extern "C"

namespace __gnu_cxx {

// libstdc++'s hook for freeing its pool at exit under memory checkers: nothing to free.
void __freeres() noexcept {}

}  // namespace __gnu_cxx

#endif  // defined(__x86_64__) && defined(__GLIBCXX__)
