// The thread merge's hot path, inline (included only by the decoder's .cc files): decoding
// a thread's next record into its cursor head (DecodeHead) and re-inserting the cursor
// into the small-mode merge order (Reinsert). Always inlined into GenerationDecoder::Next,
// which runs them for every event. The merge's out-of-line parts are in thread_merge.cc.
#ifndef TRACEWIRE_READER_THREAD_MERGE_INL_H_
#define TRACEWIRE_READER_THREAD_MERGE_INL_H_

#include <cstdint>
#include <cstring>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "format/varint.h"
#include "reader/generation_decoder.h"

namespace tracewire::reader {
namespace thread_merge_internal {

// High bit of each byte of a little-endian 8-byte word, and masks of its n low bytes.
constexpr uint64_t kHighBits = 0x8080808080808080ull;
constexpr uint64_t kLowBytesMask[9] = {0,
                                       0xffull,
                                       0xffffull,
                                       0xffffffull,
                                       0xffffffffull,
                                       0xffffffffffull,
                                       0xffffffffffffull,
                                       0xffffffffffffffull,
                                       0xffffffffffffffffull};

}  // namespace thread_merge_internal

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void GenerationDecoder::SetCurrentFromOrder() {
  const uint32_t winner = static_cast<uint32_t>(order_ & 0xf);
  const unsigned __int128 first = merge_keys_[winner];
  const unsigned __int128 second = merge_keys_[(order_ >> 4) & 0xf];
  if (ABSL_PREDICT_FALSE((static_cast<uint64_t>(first) & kExhausted) != 0)) {
    cur_ = nullptr;  // every stream is exhausted (or there is none)
    run_limit_ = 0;
    return;
  }
  cur_ = cursors_.data() + winner;
  // cur_ stays the smallest while its time is below the second's, or equal to it when
  // the second loses ties (higher index); kNoKey saturates.
  const uint64_t key = static_cast<uint64_t>(second >> 64);
  run_limit_ =
      (key + static_cast<uint64_t>((static_cast<uint64_t>(second) > static_cast<uint64_t>(first)) &
                                   (key != kNoKey))) &
      run_limit_mask_;
}

template <int kWidth>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void GenerationDecoder::ReinsertIn(unsigned __int128 key) {
  // Slots 1..kWidth-1 are sorted (sentinels last): `key` goes to slot p, the number of
  // them below it; slots 1..p move down one. Branch-free (where `key` lands is
  // unpredictable) and unrolled.
  const uint64_t order = order_;
  const uint32_t moved = static_cast<uint32_t>(order & 0xf);
  uint32_t p = 0;
  for (int k = 1; k < kWidth; ++k) {
    p += static_cast<uint32_t>(merge_keys_[(order >> (4 * k)) & 0xf] < key);
  }
  merge_keys_[moved] = key;
  const uint64_t below = (uint64_t{1} << (4 * p)) - 1;        // slots 0..p-1
  const uint64_t through = (uint64_t{1} << (4 * p + 4)) - 1;  // slots 0..p
  order_ = ((order >> 4) & below) | (uint64_t{moved} << (4 * p)) | (order & ~through);
  merge_switches_ += static_cast<uint64_t>((order_ & 0xf) != moved);
  SetCurrentFromOrder();
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void GenerationDecoder::Reinsert(unsigned __int128 key) {
  if (merge_width_ == 4) return ReinsertIn<4>(key);
  if (merge_width_ == 2) return ReinsertIn<2>(key);
  return ReinsertIn<8>(key);
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool GenerationDecoder::DecodeHead(Cursor& c) {
  if (ABSL_PREDICT_FALSE(c.pos == c.end) && !LoadBatch(c)) {
    c.has_head = false;
    return true;
  }
  const uint8_t* p = c.pos;
  const uint8_t type = *p;
  const TypeInfo& info = types_[type];
  c.head_pos = p;
  c.head_type = type;
  bool fast = info.fast;
  if (ABSL_PREDICT_TRUE(fast)) {
    ++p;
    const uint8_t* const end = c.end;
    uint64_t* const args = c.head_args;
    const int n = info.nargs;
    uint64_t word;
    if (ABSL_PREDICT_TRUE(end - p >= 8) &&
        ((std::memcpy(&word, p, 8), word) & thread_merge_internal::kHighBits &
         thread_merge_internal::kLowBytesMask[n]) == 0) {
      // Every argument is a one-byte varint: take them from one 8-byte load. Up to four
      // arguments (the usual rows) are stored unconditionally: the slots past n are unused.
      if (ABSL_PREDICT_TRUE(n <= 4)) {
        args[0] = word & 0xff;
        args[1] = (word >> 8) & 0xff;
        args[2] = (word >> 16) & 0xff;
        args[3] = (word >> 24) & 0xff;
      } else {
        for (int i = 0; i < n; ++i) args[i] = (word >> (8 * i)) & 0xff;
      }
      p += n;
    } else {
      for (int i = 0; i < n; ++i) {
        if (ABSL_PREDICT_TRUE(end - p >= 2)) {
          // One- and two-byte varints inline; longer ones through GetUvarint.
          const uint64_t b0 = p[0];
          if (ABSL_PREDICT_TRUE(b0 < 0x80)) {
            args[i] = b0;
            ++p;
            continue;
          }
          if (p[1] < 0x80) {
            args[i] = (b0 & 0x7f) | (uint64_t{p[1]} << 7);
            p += 2;
            continue;
          }
        }
        if (format::GetUvarint(&p, end, &args[i]) != format::VarintResult::kOk) {
          fast = false;
          break;
        }
      }
    }
    if (ABSL_PREDICT_TRUE(fast)) c.pos = p;
  }
  if (ABSL_PREDICT_FALSE(!fast) && !DecodeSlow(c)) return false;
  ++c.records;
  const uint64_t dt = c.head_args[0];
  const uint64_t t = c.time + dt;
  if (ABSL_PREDICT_FALSE(dt == 0 || t < c.time || c.check_floor)) return CheckTime(c, dt, t);
  c.time = t;
  return true;
}

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_THREAD_MERGE_INL_H_
