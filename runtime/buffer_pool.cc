#include "runtime/buffer_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

namespace tracewire::runtime {
namespace {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

constexpr size_t kHugePage = size_t{2} << 20;
// Slabs mapped when the free list is empty (on whichever thread needs a buffer): small
// pages, faulted in as written, so a process that records little stays small.
constexpr size_t kLazySlabBuffers = 16;
// Slabs the advancer maps ahead of need: one huge page, faulted in at once.
constexpr size_t kEagerSlabBuffers = kHugePage / kBufferSize;

// Maps `size` bytes aligned to `alignment`; nullptr if the system refuses.
uint8_t* MapAligned(size_t size, size_t alignment) {
  const size_t padded = size + alignment;
  void* raw = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + alignment - 1) & ~(alignment - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + padded;
  if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - aligned - size);
  return reinterpret_cast<uint8_t*>(aligned);
}

// Faults in every page of [memory, memory + size) for writing. The kernel leaves pages
// already present as they are, so buffers of the range may be in use. Without
// MADV_POPULATE_WRITE (Linux < 5.14) only memory no thread uses yet (`unused`) is touched
// by hand; the rest faults in as it is written.
void Populate(uint8_t* memory, size_t size, bool unused) {
  if (madvise(memory, size, MADV_POPULATE_WRITE) == 0 || !unused) return;
  for (size_t offset = 0; offset < size; offset += 4096) {
    static_cast<volatile uint8_t*>(memory)[offset] = 0;
  }
}

}  // namespace

void BufferList::Append(Buffer* buffer) {
  buffer->next = nullptr;
  if (tail == nullptr) {
    head = buffer;
  } else {
    tail->next = buffer;
  }
  tail = buffer;
  ++count;
  bytes += buffer->size();
}

void BufferList::Splice(BufferList* other) {
  if (other->head == nullptr) return;
  if (tail == nullptr) {
    head = other->head;
  } else {
    tail->next = other->head;
  }
  tail = other->tail;
  count += other->count;
  bytes += other->bytes;
  *other = BufferList{};
}

void BufferPool::AddSlabLocked(Slab slab, size_t count) {
  auto* buffers = new Buffer[count];
  for (size_t i = 0; i < count; ++i) {
    buffers[i].data = slab.memory + i * kBufferSize;
    buffers[i].next = free_;
    free_ = &buffers[i];
  }
  free_count_ += count;
  total_ += count;
}

void BufferPool::SetLowWater(size_t buffers) {
  std::lock_guard<std::mutex> lock(mu_);
  low_water_ = std::clamp<size_t>(buffers, 1, kLowWater);
  UpdateWantsRefillLocked();
}

void BufferPool::UpdateWantsRefillLocked() {
  // relaxed: a hint (the refill takes mu_ and reads the pool's own state).
  wants_refill_.store(lazy_count_ > 0 || free_count_ < low_water_, std::memory_order_relaxed);
}

Buffer* BufferPool::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  if (free_ == nullptr) {
    const size_t size = kLazySlabBuffers * kBufferSize;
    uint8_t* memory = MapAligned(size, kBufferSize);
    if (memory == nullptr) abort();  // out of address space: nothing sensible is left
    AddSlabLocked(Slab{memory, size}, kLazySlabBuffers);
    if (lazy_count_ < kMaxLazySlabs) lazy_slabs_[lazy_count_++] = Slab{memory, size};
  }
  Buffer* buffer = free_;
  free_ = buffer->next;
  --free_count_;
  UpdateWantsRefillLocked();
  buffer->next = nullptr;
  buffer->begin = buffer->end = 0;
  buffer->packed = false;
  return buffer;
}

void BufferPool::Give(Buffer* buffer) {
  std::lock_guard<std::mutex> lock(mu_);
  buffer->next = free_;
  free_ = buffer;
  ++free_count_;
  UpdateWantsRefillLocked();
}

void BufferPool::GiveAll(BufferList* list) {
  if (list->empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  list->tail->next = free_;
  free_ = list->head;
  free_count_ += list->count;
  UpdateWantsRefillLocked();
  *list = BufferList{};
}

void BufferPool::Refill() {
  Slab lazy[kMaxLazySlabs];
  size_t lazy_count;
  size_t free_count;
  size_t low_water;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lazy_count = lazy_count_;
    for (size_t i = 0; i < lazy_count; ++i) lazy[i] = lazy_slabs_[i];
    lazy_count_ = 0;
    free_count = free_count_;
    low_water = low_water_;
  }
  for (size_t i = 0; i < lazy_count; ++i) Populate(lazy[i].memory, lazy[i].size, false);
  // Up to twice the low-water mark, so that the recording threads can go on while this
  // thread writes a generation.
  const size_t slab_buffers = std::min(kEagerSlabBuffers, 2 * low_water);
  const bool huge = slab_buffers == kEagerSlabBuffers;
  while (free_count < 2 * low_water) {
    Slab eager{nullptr, slab_buffers * kBufferSize};
    eager.memory = MapAligned(eager.size, huge ? kHugePage : kBufferSize);
    if (eager.memory == nullptr) break;
    if (huge) madvise(eager.memory, eager.size, MADV_HUGEPAGE);
    Populate(eager.memory, eager.size, true);
    std::lock_guard<std::mutex> lock(mu_);
    AddSlabLocked(eager, slab_buffers);
    free_count = free_count_;
  }
  std::lock_guard<std::mutex> lock(mu_);
  UpdateWantsRefillLocked();
}

size_t BufferPool::total_buffers() {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

size_t BufferPool::free_buffers() {
  std::lock_guard<std::mutex> lock(mu_);
  return free_count_;
}

}  // namespace tracewire::runtime
