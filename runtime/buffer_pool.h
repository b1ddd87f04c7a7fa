// BufferPool: the runtime's 64 KiB buffers (thread batches, string and table batches, the
// packed frames of a generation), recycled through a free list so that a recording thread
// never faults in fresh pages in steady state. Buffers come from slabs mapped once and
// never returned to the system; the advancer thread pre-faults them off the recording
// threads (MADV_POPULATE_WRITE) when the free list runs low.
#ifndef TRACEWIRE_RUNTIME_BUFFER_POOL_H_
#define TRACEWIRE_RUNTIME_BUFFER_POOL_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "format/constants.h"

namespace tracewire::runtime {

inline constexpr size_t kBufferSize = format::kMaxBatchSize;

// One pooled buffer: kBufferSize bytes at `data`, holding frames in [begin, end).
struct Buffer {
  Buffer* next = nullptr;
  uint8_t* data = nullptr;
  uint32_t begin = 0;
  uint32_t end = 0;
  bool packed = false;  // holds whole frames copied in back to back; more may be appended

  size_t size() const { return end - begin; }
};

// An ordered singly linked list of buffers and the bytes they hold.
struct BufferList {
  Buffer* head = nullptr;
  Buffer* tail = nullptr;
  size_t count = 0;
  size_t bytes = 0;

  bool empty() const { return head == nullptr; }
  void Append(Buffer* buffer);
  // Moves all of `other` to the end of this list.
  void Splice(BufferList* other);
};

class BufferPool {
 public:
  // By default the free list falling below this many buffers (2 MiB) asks the advancer to
  // refill it, up to twice as many.
  static constexpr size_t kLowWater = 32;

  BufferPool() = default;
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A free buffer (begin = end = 0, not packed). Never fails: with an empty free list it
  // maps a slab on the calling thread, whose pages then fault in as they are written.
  Buffer* Take();
  // Returns a buffer, or every buffer of a list (left empty), to the free list.
  void Give(Buffer* buffer);
  void GiveAll(BufferList* list);

  // Sets the low-water mark (at least 1, at most kLowWater): a smaller reserve for a
  // session that bounds its memory (the flight recorder). The advancer's slabs shrink to
  // twice the mark when that is below one huge page. Call before any thread records.
  void SetLowWater(size_t buffers);

  // True when the free list is low or a slab was mapped without being faulted in (cheap,
  // lock-free).
  bool WantsRefill() const {
    return wants_refill_.load(std::memory_order_relaxed);  // relaxed: a hint, publishes nothing
  }
  // Faults in the slabs mapped without it and, while the free list holds fewer than twice
  // the low-water mark, maps and faults in new slabs (2 MiB, huge-page advised). For
  // the advancer thread: the page faults happen there.
  // Faulting in pages of buffers in use is harmless (present pages are left as they are).
  void Refill();

  // Buffers mapped so far and buffers free now (for tests and benchmarks).
  size_t total_buffers();
  size_t free_buffers();

 private:
  struct Slab {
    uint8_t* memory;
    size_t size;
  };
  static constexpr size_t kMaxLazySlabs = 16;

  // Adds the `count` buffers of `slab` to the free list. Requires mu_.
  void AddSlabLocked(Slab slab, size_t count);
  void UpdateWantsRefillLocked();

  std::mutex mu_;
  Buffer* free_ = nullptr;
  size_t free_count_ = 0;
  size_t total_ = 0;
  Slab lazy_slabs_[kMaxLazySlabs] = {};  // mapped on a recording thread, not faulted in yet
  size_t lazy_count_ = 0;
  size_t low_water_ = kLowWater;
  std::atomic<bool> wants_refill_{false};
};

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_BUFFER_POOL_H_
