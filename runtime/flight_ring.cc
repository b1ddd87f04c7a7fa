#include "runtime/flight_ring.h"

#include <sys/mman.h>

#include <cstring>

namespace tracewire::runtime {

FlightRing::~FlightRing() {
  if (memory_ != nullptr) munmap(memory_, capacity_);
  delete[] slots_;
}

bool FlightRing::Init(size_t capacity) {
  void* memory = mmap(nullptr, capacity, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return false;
  // Not value-initialized: a slot is written before it is read.
  if (slots_ == nullptr) slots_ = new Slot[kMaxGenerations];
  memory_ = static_cast<uint8_t*>(memory);
  capacity_ = capacity;
  return true;
}

FlightRing::Entry FlightRing::Get(size_t i) const {
  const Slot& slot = slots_[(first_ + i) % kMaxGenerations];
  return Entry{slot.gen, memory_ + slot.offset, slot.size};
}

void FlightRing::PopOldest() {
  bytes_ -= Oldest().size;
  first_ = (first_ + 1) % kMaxGenerations;
  --count_;
}

void FlightRing::Store(uint64_t gen, const iovec* pieces, int count) {
  size_t size = 0;
  for (int i = 0; i < count; ++i) size += pieces[i].iov_len;
  if (size > capacity_) {
    ++dropped_too_big_;
    return;
  }
  // Generations lie in the ring oldest first from just after head_, wrapping once: the
  // bytes the new one takes, swept from head_ on, hold the oldest ones.
  size_t offset = head_;
  if (offset + size > capacity_) {
    while (count_ != 0 && Oldest().offset >= head_) PopOldest();
    offset = 0;
  }
  while (count_ != 0 && Oldest().offset >= offset && Oldest().offset < offset + size) {
    PopOldest();
  }
  if (count_ == kMaxGenerations) PopOldest();
  uint8_t* out = memory_ + offset;
  for (int i = 0; i < count; ++i) {
    memcpy(out, pieces[i].iov_base, pieces[i].iov_len);
    out += pieces[i].iov_len;
  }
  slots_[(first_ + count_) % kMaxGenerations] = Slot{gen, offset, size};
  ++count_;
  bytes_ += size;
  head_ = offset + size;
}

}  // namespace tracewire::runtime
