// The thread merge of GenerationDecoder, out of line: the heap mode (more than
// kLinearMergeMax threads), picking the cursor with the smallest head, loading a thread's
// next batch and the slow decoding and time checks of a record.
#include <algorithm>
#include <utility>

#include "absl/strings/str_format.h"
#include "format/raw_decoder.h"
#include "reader/generation_decoder.h"
#include "reader/thread_merge-inl.h"

namespace tracewire::reader {

void GenerationDecoder::Pick() {
  if (linear_) return SetCurrentFromOrder();
  if (heap_.empty()) {
    cur_ = nullptr;
    return;
  }
  const uint32_t top = heap_[0];
  cur_ = &cursors_[top];
  // Every other cursor is at or after one of the root's children in (key, index) order.
  uint64_t limit = kNoKey;
  for (size_t child = 1; child <= 2 && child < heap_.size(); ++child) {
    const uint32_t other = heap_[child];
    const uint64_t key = keys_[other];
    const uint64_t bound = key == kNoKey || other < top ? key : key + 1;
    limit = std::min(limit, bound);
  }
  run_limit_ = limit;
}

void GenerationDecoder::SiftUp(size_t i) {
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!HeapLess(heap_[i], heap_[parent])) break;
    std::swap(heap_[i], heap_[parent]);
    i = parent;
  }
}

void GenerationDecoder::SiftDown(size_t i) {
  const size_t n = heap_.size();
  while (true) {
    const size_t left = 2 * i + 1;
    if (left >= n) return;
    size_t best = left;
    if (left + 1 < n && HeapLess(heap_[left + 1], heap_[left])) best = left + 1;
    if (!HeapLess(heap_[best], heap_[i])) return;
    std::swap(heap_[i], heap_[best]);
    i = best;
  }
}

bool GenerationDecoder::LoadBatch(Cursor& c) {
  while (c.pos == c.end) {
    if (c.next_batch == kNoBatch) return false;
    const Batch& b = batches_[c.next_batch];
    c.next_batch = b.next;
    if (b.begin == b.end) continue;  // an empty batch changes nothing
    c.pos = c.body_begin = b.begin;
    c.end = b.end;
    c.body_offset = b.body_offset;
    if (c.records > 0 && b.base_time < c.time) {
      // The batch starts before the thread's last event: its first event must still come
      // after that event.
      c.check_floor = true;
      c.floor = c.time;
    }
    c.time = b.base_time;
  }
  return true;
}

bool GenerationDecoder::DecodeSlow(Cursor& c) {
  format::RecordDecoder decoder(
      absl::string_view(reinterpret_cast<const char*>(c.pos), c.end - c.pos), HeadOffset(c),
      format::Scope::kEventBody, version_);
  absl::StatusOr<bool> decoded = decoder.Next(&raw_);
  ++c.records;
  if (!decoded.ok()) {
    // The batch body is complete, so a record running past its end is corruption.
    return FailFalse(
        absl::DataLossError(absl::StrFormat("%s, thread %d, event %d: %s", describe_, c.thread_id,
                                            c.records - 1, decoded.status().message())));
  }
  std::copy(raw_.args, raw_.args + raw_.num_args, c.head_args);
  c.head_data = raw_.data;
  c.pos += raw_.size;
  --c.records;  // counted again with the time
  return true;
}

bool GenerationDecoder::CheckTime(Cursor& c, uint64_t dt, uint64_t t) {
  const format::EventSpec* spec = specs_[c.head_type];
  if (dt == 0) {
    return FailFalse(
        HeadError(c, absl::StrFormat("%s has dt 0: times must strictly increase "
                                     "(dt >= 1)",
                                     spec != nullptr ? spec->name : "experimental event")));
  }
  if (t < c.time) return FailFalse(HeadError(c, "time overflows 64 bits"));
  if (c.check_floor) {
    c.check_floor = false;
    if (t <= c.floor) {
      return FailFalse(HeadError(c, absl::StrFormat("time %d is not after the thread's previous "
                                                    "event at %d: batches of one thread overlap "
                                                    "in time",
                                                    t, c.floor)));
    }
  }
  c.time = t;
  return true;
}

void GenerationDecoder::Repick(Cursor& c) {
  if (!c.has_head) {
    if (absl::Status s = EndStream(c); !s.ok()) {
      error_ = std::move(s);
      cur_ = nullptr;
      return;
    }
    if (linear_) return Reinsert(MergeKey(c));
    keys_[c.index] = kNoKey;
    heap_[0] = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown(0);
  } else {
    if (linear_) return Reinsert(MergeKey(c));
    keys_[c.index] = c.time;
    SiftDown(0);
  }
  Pick();
}

}  // namespace tracewire::reader
