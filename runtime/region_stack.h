// RegionStack: a thread's open regions, innermost last. A vector whose room can be tested
// and used without the growth path, so the region hot path (region_at_callsite.cc) pushes
// and pops a frame with no call in its code, and whose innermost frame can be read even
// when it is empty (a floor frame sits below the first), so the hot path tests "an open
// region without a message" with one compare.
#ifndef TRACEWIRE_RUNTIME_REGION_STACK_H_
#define TRACEWIRE_RUNTIME_REGION_STACK_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tracewire::runtime {

// An open region of a thread: its site index and message (in the thread's msg arena).
struct RegionFrame {
  uint32_t site_index;
  bool has_msg;
  uint32_t msg_offset;
  uint32_t msg_length;
  uint64_t enter_time;
};

class RegionStack {
 public:
  RegionStack() = default;
  RegionStack(const RegionStack&) = delete;
  RegionStack& operator=(const RegionStack&) = delete;
  ~RegionStack() {
    if (begin_ != EmptyBegin()) free(begin_ - 1);
  }

  bool empty() const { return end_ == begin_; }
  size_t size() const { return end_ - begin_; }
  const RegionFrame& back() const { return end_[-1]; }
  const RegionFrame* begin() const { return begin_; }
  const RegionFrame* end() const { return end_; }

  // True when one more frame fits without growing.
  bool has_room() const { return end_ != capacity_end_; }
  // True when the stack is not empty and its innermost frame has no message: one load and
  // one compare (the floor frame below the first reads as a frame with a message).
  bool back_is_plain() const { return !end_[-1].has_msg; }
  // Appends `frame`; requires has_room().
  void push_unchecked(const RegionFrame& frame) { *end_++ = frame; }
  // Appends a frame without a message; requires has_room(). Its msg_offset and msg_length
  // are left unset: they are read only when has_msg is true.
  void push_plain_unchecked(uint32_t site_index, uint64_t enter_time) {
    end_->site_index = site_index;
    end_->has_msg = false;
    end_->enter_time = enter_time;
    ++end_;
  }
  // Appends `frame`, growing the stack if needed.
  void push_back(const RegionFrame& frame) {
    if (!has_room()) Grow(size() + 1);
    push_unchecked(frame);
  }
  // Removes the innermost frame; requires !empty().
  void pop_back() { --end_; }
  void clear() { end_ = begin_; }
  // Makes room for `n` frames in all.
  void reserve(size_t n) {
    if (n > static_cast<size_t>(capacity_end_ - begin_)) Grow(n);
  }

 private:
  // The frame below the first (has_msg set, so back_is_plain() is false when empty); the
  // storage of a stack that never grew is this frame alone.
  static constexpr RegionFrame kFloor[1] = {{0, true, 0, 0, 0}};
  static RegionFrame* EmptyBegin() { return const_cast<RegionFrame*>(kFloor + 1); }

  // Storage: the floor frame, then `capacity` frames.
  void Grow(size_t at_least) {
    size_t capacity = static_cast<size_t>(capacity_end_ - begin_) * 2;
    if (capacity < at_least) capacity = at_least;
    if (capacity < 16) capacity = 16;
    const size_t count = size();
    RegionFrame* old = begin_ == EmptyBegin() ? nullptr : begin_ - 1;
    auto* storage = static_cast<RegionFrame*>(realloc(old, (capacity + 1) * sizeof(RegionFrame)));
    if (storage == nullptr) throw std::bad_alloc();
    storage[0] = kFloor[0];
    begin_ = storage + 1;
    end_ = begin_ + count;
    capacity_end_ = begin_ + capacity;
  }

  // Never written while they point at kFloor: has_room() is false there.
  RegionFrame* begin_ = EmptyBegin();
  RegionFrame* end_ = EmptyBegin();
  RegionFrame* capacity_end_ = EmptyBegin();
};

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_REGION_STACK_H_
