// FlightRing: the flight recorder's memory — the most recent finished generations, each
// kept whole and contiguous in one fixed region mapped once, the oldest dropped first to
// make room. Reading it (for a dump) allocates nothing, so the fatal-signal path can too.
#ifndef TRACEWIRE_RUNTIME_FLIGHT_RING_H_
#define TRACEWIRE_RUNTIME_FLIGHT_RING_H_

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

namespace tracewire::runtime {

class FlightRing {
 public:
  // At most this many generations are kept (whatever their size).
  static constexpr size_t kMaxGenerations = 1024;

  // One kept generation: its frames (or its compressed_generation frame) at `bytes`.
  struct Entry {
    uint64_t gen = 0;
    const uint8_t* bytes = nullptr;
    size_t size = 0;
  };

  FlightRing() = default;
  ~FlightRing();
  FlightRing(const FlightRing&) = delete;
  FlightRing& operator=(const FlightRing&) = delete;

  // Maps `capacity` bytes (pages are touched only as generations fill them). False if the
  // mapping failed.
  bool Init(size_t capacity);
  bool enabled() const { return memory_ != nullptr; }
  size_t capacity() const { return capacity_; }

  // Keeps generation `gen`, the concatenation of `pieces`, as the newest one, dropping the
  // oldest generations it needs the room of. A generation larger than the whole ring
  // cannot be kept: it is dropped (the kept ones then skip its number; each generation
  // decodes on its own) and dropped_too_big() counts it.
  // Not thread-safe: the caller serialises changes and reads (advance_mu).
  void Store(uint64_t gen, const iovec* pieces, int count);

  // The number of generations kept, and the i-th oldest (0 = oldest). Async-signal-safe.
  size_t size() const { return count_; }
  Entry Get(size_t i) const;
  // Bytes of all kept generations.
  size_t bytes() const { return bytes_; }
  uint64_t dropped_too_big() const { return dropped_too_big_; }

 private:
  struct Slot {
    uint64_t gen;
    size_t offset;
    size_t size;
  };
  void PopOldest();
  const Slot& Oldest() const { return slots_[first_]; }

  uint8_t* memory_ = nullptr;
  size_t capacity_ = 0;
  size_t head_ = 0;        // where the byte after the newest generation is
  Slot* slots_ = nullptr;  // kMaxGenerations of them, allocated by Init (not every Session
                           // pays for 24 KiB of zeroed pages)
  size_t first_ = 0;       // index of the oldest slot
  size_t count_ = 0;
  size_t bytes_ = 0;
  uint64_t dropped_too_big_ = 0;
};

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_FLIGHT_RING_H_
