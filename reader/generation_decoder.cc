#include "reader/generation_decoder.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/raw_decoder.h"
#include "format/varint.h"

namespace tracewire::reader {
namespace {

using format::EventType;

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

// Deepest region stack accepted per thread (garbage must not grow memory without bound).
constexpr size_t kMaxRegionDepth = size_t{1} << 20;

constexpr uint8_t T(EventType type) { return static_cast<uint8_t>(type); }

// "00" "01" ... "99".
constexpr struct TwoDigits {
  char pairs[200];
  constexpr TwoDigits() : pairs() {
    for (int i = 0; i < 100; ++i) {
      pairs[2 * i] = static_cast<char>('0' + i / 10);
      pairs[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
  }
} kTwoDigits;

// Writes the decimal form of `value` (what std::to_chars writes: at most 20 characters) so
// that it ends at `end`, and returns its first character. Branch-free below 10000 in
// magnitude (the usual data_int values, whose digit counts vary unpredictably).
inline char* FormatDecimalBackward(int64_t value, char* end) {
  const uint64_t u = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  char* p;
  if (ABSL_PREDICT_TRUE(u < 10000)) {
    const uint64_t high = u / 100;
    std::memcpy(end - 2, kTwoDigits.pairs + 2 * (u - high * 100), 2);
    std::memcpy(end - 4, kTwoDigits.pairs + 2 * high, 2);
    p = end -
        (1 + static_cast<int>(u >= 10) + static_cast<int>(u >= 100) + static_cast<int>(u >= 1000));
  } else {
    uint64_t rest = u;
    p = end;
    while (rest >= 100) {
      const uint64_t q = rest / 100;
      p -= 2;
      std::memcpy(p, kTwoDigits.pairs + 2 * (rest - q * 100), 2);
      rest = q;
    }
    if (rest >= 10) {
      p -= 2;
      std::memcpy(p, kTwoDigits.pairs + 2 * rest, 2);
    } else {
      *--p = static_cast<char>('0' + rest);
    }
  }
  p[-1] = '-';
  return p - static_cast<int>(value < 0);
}

std::string DefaultThreadName(uint64_t thread_id) {
  if (thread_id == 0) return "main";
  return absl::StrFormat("th%02d:unknown", thread_id);
}

}  // namespace

GenerationDecoder::GenerationDecoder() {
  for (int i = 0; i < 256; ++i) {
    const format::EventSpec* spec = format::LookupSpec(static_cast<uint8_t>(i));
    specs_[i] = spec;
    TypeInfo& info = types_[i];
    info.kind = EventKindOfType(static_cast<uint8_t>(i));
    if (spec == nullptr) continue;
    if (spec->scope == format::Scope::kEventBody && !spec->has_data) {
      info.fast = true;
      info.nargs = spec->num_args;
    }
    if (spec->timed && !spec->experimental && !spec->trace2_event.empty() && spec->num_args >= 2 &&
        spec->args[1].type == format::ArgType::kSite &&
        spec->num_string_ids <= sizeof(info.strings)) {
      info.trace2 = true;
      info.nstrings = spec->num_string_ids;
      std::copy(spec->string_ids, spec->string_ids + spec->num_string_ids, info.strings);
      if (info.nstrings > 2) {
        info.str_a = kOnesArg;
      } else {
        if (info.nstrings >= 1) info.str_a = info.strings[0];
        if (info.nstrings >= 2) info.str_b = info.strings[1];
      }
    }
  }
}

absl::Status GenerationDecoder::GenError(uint64_t offset, absl::string_view reason) const {
  return absl::DataLossError(absl::StrFormat("%s: byte offset %d: %s", describe_, offset, reason));
}

uint64_t GenerationDecoder::HeadOffset(const Cursor& c) {
  return c.body_offset + static_cast<uint64_t>(c.head_pos - c.body_begin);
}

absl::Status GenerationDecoder::CursorError(const Cursor& c, uint64_t offset, uint64_t index,
                                            absl::string_view reason) const {
  return absl::DataLossError(absl::StrFormat("%s, thread %d, event %d: byte offset %d: %s",
                                             describe_, c.thread_id, index, offset, reason));
}

absl::Time GenerationDecoder::SlowWallTime(uint64_t ticks) const {
  const int64_t delta = static_cast<int64_t>(ticks - info_.clock.trace_time);
  const __int128 wide =
      static_cast<__int128>(delta) * 1000000000 / static_cast<__int128>(info_.clock.freq);
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
  return info_.clock.wall + absl::Nanoseconds(static_cast<int64_t>(std::clamp(wide, kMin, kMax)));
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Time GenerationDecoder::WallTime(uint64_t ticks) {
  const int64_t delta = static_cast<int64_t>(ticks - info_.clock.trace_time);
  int64_t ns, unix_ns;
  if (ABSL_PREDICT_TRUE(ns_per_tick_ != 0) && !__builtin_mul_overflow(delta, ns_per_tick_, &ns) &&
      !__builtin_add_overflow(wall_unix_ns_, ns, &unix_ns)) {
    return absl::FromUnixNanos(unix_ns);
  }
  return SlowWallTime(ticks);
}

absl::Status GenerationDecoder::Start(const RawGeneration& gen, ProcessStates* processes) {
  uint64_t records = 0;  // of the previous generation
  for (const Cursor& c : cursors_) records += c.records;
  const bool switchy = merge_switches_ * 2 > records;
  merge_switches_ = 0;
  state_ = nullptr;
  finished_ = false;
  error_ = absl::OkStatus();
  cur_ = nullptr;
  heap_.clear();
  keys_.clear();
  batches_.clear();
  cursors_.clear();
  cursor_of_thread_.clear();
  order_ = 0;  // no cursor until the merge is set up
  merge_keys_[0] = ~static_cast<unsigned __int128>(0);
  describe_ = gen.Describe();
  info_.gen = gen.gen;
  info_.file_offset = gen.file_offset;
  info_.file_bytes = gen.file_bytes;
  info_.compressed = gen.compressed;
  info_.experimental_batches.clear();

  const Frame* clock = nullptr;
  const Frame* process = nullptr;
  for (const Frame& f : gen.frames) {
    if (f.type == EventType::kClockSync) {
      if (clock != nullptr) {
        return GenError(f.offset, "second clock_sync (a generation has exactly one)");
      }
      clock = &f;
    } else if (f.type == EventType::kProcessInfo) {
      if (process != nullptr) {
        return GenError(f.offset, "second process_info (a generation has exactly one)");
      }
      process = &f;
    } else if (f.type == EventType::kExperimentalBatch) {
      info_.experimental_batches.push_back({f.args[0], f.args[2], f.args[3], f.payload});
    }
  }
  if (clock == nullptr) {
    return GenError(gen.file_offset, "no clock_sync (a generation has exactly one)");
  }
  if (process == nullptr) {
    return GenError(gen.file_offset, "no process_info (a generation has exactly one)");
  }

  // clock_sync: gen, freq, trace_time, mono_ns, wall_sec, wall_nsec, utc_offset_sec.
  const uint64_t* ca = clock->args;
  if (ca[1] == 0) return GenError(clock->offset, "clock_sync freq is 0");
  if (ca[5] >= 1000000000) {
    return GenError(clock->offset,
                    absl::StrFormat("clock_sync wall_nsec %d is not below 1e9", ca[5]));
  }
  if (ca[4] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return GenError(clock->offset,
                    absl::StrFormat("clock_sync wall_sec %d is out of range", ca[4]));
  }
  info_.clock.freq = ca[1];
  info_.clock.trace_time = ca[2];
  info_.clock.mono_ns = ca[3];
  info_.clock.wall = absl::FromUnixSeconds(static_cast<int64_t>(ca[4])) + absl::Nanoseconds(ca[5]);
  info_.clock.utc_offset_sec = format::ZigzagDecode(ca[6]);
  sec_per_tick_ = 1.0 / static_cast<double>(ca[1]);
  ns_per_tick_ = 1000000000 % ca[1] == 0 ? static_cast<int64_t>(1000000000 / ca[1]) : 0;
  if (ca[4] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / 1000000000 - 1)) {
    ns_per_tick_ = 0;  // wall time beyond int64 nanoseconds: use the general path
    wall_unix_ns_ = 0;
  } else {
    wall_unix_ns_ = static_cast<int64_t>(ca[4]) * 1000000000 + static_cast<int64_t>(ca[5]);
  }

  if (absl::Status s = tables_.Build(gen); !s.ok()) return s;

  // process_info: gen, sid_string, pid, start_time, name_string, hierarchy_string.
  const uint64_t* pa = process->args;
  if (pa[1] == 0) return GenError(process->offset, "process_info has no sid (sid_string 0)");
  for (int i : {1, 4, 5}) {
    if (pa[i] != 0 && tables_.FindString(pa[i]) == nullptr) {
      return GenError(
          process->offset,
          absl::StrFormat("process_info %s %d is not in the string table",
                          format::LookupSpec(EventType::kProcessInfo)->args[i].name, pa[i]));
    }
  }
  ProcessState* const state = processes->FindOrCreate(Str(pa[1]));
  if (state->last_gen.has_value() && gen.gen <= *state->last_gen) {
    return GenError(process->offset,
                    absl::StrFormat("process %s: generation %d follows its generation %d; a "
                                    "process's generation numbers must increase",
                                    state->sid, gen.gen, *state->last_gen));
  }
  state_ = state;
  state->pid = pa[2];
  state->start_time = pa[3];
  start_time_ = pa[3];
  info_.sid = state->sid;
  event_.gen = gen.gen;
  event_.sid = state->sid;
  event_.depth = state->depth;
  event_.utc_offset_sec = info_.clock.utc_offset_sec;
  info_.pid = pa[2];
  info_.start_time = pa[3];
  info_.name = OptStr(pa[4]);
  info_.hierarchy = OptStr(pa[5]);

  // Group the event batches by thread, keeping file order within a thread.
  std::vector<uint32_t> last_batch;
  for (const Frame& f : gen.frames) {
    if (f.type != EventType::kEventBatch) continue;
    const uint32_t index = static_cast<uint32_t>(batches_.size());
    batches_.push_back(Batch{reinterpret_cast<const uint8_t*>(f.payload.data()),
                             reinterpret_cast<const uint8_t*>(f.payload.data()) + f.payload.size(),
                             f.payload_offset, f.args[2], kNoBatch});
    auto [it, inserted] = cursor_of_thread_.try_emplace(f.args[1], cursors_.size());
    if (inserted) {
      Cursor& c = cursors_.emplace_back();
      c.thread_id = f.args[1];
      c.next_batch = index;
      last_batch.push_back(index);
    } else {
      batches_[last_batch[it->second]].next = index;
      last_batch[it->second] = index;
    }
  }
  info_.num_threads = cursors_.size();
  // Cursor order = thread order, so that equal times go to the lower thread number.
  std::sort(cursors_.begin(), cursors_.end(),
            [](const Cursor& x, const Cursor& y) { return x.thread_id < y.thread_id; });
  keys_.assign(cursors_.size(), kNoKey);
  for (size_t i = 0; i < cursors_.size(); ++i) {
    Cursor& c = cursors_[i];
    c.index = static_cast<uint32_t>(i);
    std::unique_ptr<ThreadState>& ts = state->threads[c.thread_id];
    if (ts == nullptr) {
      ts = std::make_unique<ThreadState>();
      ts->name = DefaultThreadName(c.thread_id);
      ts->start_time = state->start_time;
    }
    c.ts = ts.get();
  }
  linear_ = cursors_.size() <= kLinearMergeMax;
  for (Cursor& c : cursors_) {
    c.has_head = true;  // until DecodeHead finds the stream exhausted
    if (!DecodeHead(c)) return error_;
    if (log_ != nullptr) LogThread(c);
    if (c.has_head) {
      keys_[c.index] = c.time;
      if (!linear_) {
        heap_.push_back(c.index);
        SiftUp(heap_.size() - 1);
      }
    } else if (absl::Status s = EndStream(c); !s.ok()) {
      return s;
    }
  }
  // Re-insert after every record when the previous generation switched thread at more
  // than every second record (where the run-limit branch mostly mispredicts).
  const bool always_reinsert = linear_ && cursors_.size() >= 2 && switchy;
  run_limit_mask_ = always_reinsert ? 0 : kNoKey;
  if (linear_) {
    const size_t n = cursors_.size();
    merge_width_ = n <= 2 ? 2 : n <= 4 ? 4 : 8;
    uint32_t order[kLinearMergeMax + 1];
    for (size_t i = 0; i <= kLinearMergeMax; ++i) {
      merge_keys_[i] = i < n ? MergeKey(cursors_[i]) : ~static_cast<unsigned __int128>(0);
      order[i] = static_cast<uint32_t>(i);
    }
    std::sort(order, order + n,
              [this](uint32_t x, uint32_t y) { return merge_keys_[x] < merge_keys_[y]; });
    order_ = 0;
    for (size_t k = 0; k < kLinearMergeMax; ++k) order_ |= uint64_t{order[k]} << (4 * k);
  }
  cur_ = nullptr;
  run_limit_ = 0;
  pick_at_start_ = true;
  return absl::OkStatus();
}

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
      format::Scope::kEventBody);
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
        ((std::memcpy(&word, p, 8), word) & kHighBits & kLowBytesMask[n]) == 0) {
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

absl::Status GenerationDecoder::EndRestatement(Cursor& c) {
  c.restating = false;
  const ThreadState& ts = *c.ts;
  if (log_ != nullptr) {
    SpeculationLog::Entry entry{SpeculationLog::Op::kRestated, c.thread_id};
    entry.regions = ts.regions;
    log_->AddEntry(std::move(entry));
  }
  if (!ts.carried.has_value() || *ts.carried == ts.regions) return absl::OkStatus();
  const std::vector<uint64_t>& carried = *ts.carried;
  if (carried.size() != ts.regions.size()) {
    return HeadError(c, absl::StrFormat("thread_status and region_active re-state %d open "
                                        "regions, but %d were open at the end of the previous "
                                        "generation",
                                        ts.regions.size(), carried.size()));
  }
  for (size_t i = 0; i < carried.size(); ++i) {
    if (carried[i] != ts.regions[i]) {
      return HeadError(c, absl::StrFormat("region_active %d re-states a region entered at %d, "
                                          "but the open region was entered at %d",
                                          i, ts.regions[i], carried[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status GenerationDecoder::EndStream(Cursor& c) {
  c.has_pending_stack = false;
  if (c.restating) return EndRestatement(c);
  return absl::OkStatus();
}

void GenerationDecoder::FinishGeneration() {
  auto& threads = state_->threads;
  for (auto it = threads.begin(); it != threads.end();) {
    if (it->second->exited) {
      threads.erase(it++);
    } else {
      it->second->carried = it->second->regions;
      ++it;
    }
  }
  state_->last_gen = info_.gen;
}

absl::Status GenerationDecoder::SplitList(const Cursor& c, uint64_t id,
                                          std::vector<absl::string_view>* items) {
  items->clear();
  absl::string_view bytes = Str(id);
  if (!bytes.empty() && bytes.back() != '\0') {
    return HeadError(c, absl::StrFormat("string list %d does not end with a NUL byte", id));
  }
  while (!bytes.empty()) {
    const size_t nul = bytes.find('\0');
    items->push_back(bytes.substr(0, nul));
    bytes.remove_prefix(nul + 1);
  }
  return absl::OkStatus();
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void GenerationDecoder::FillCommon(Cursor& c, uint8_t type,
                                                                       uint64_t now) {
  const ThreadState& ts = *c.ts;
  // gen, sid, depth and utc_offset_sec are set once per generation (Start).
  Event& e = event_;
  e.wire_type = type;
  e.thread_id = c.thread_id;
  e.ticks = now;
  e.thread_name = ts.name;
  e.time = WallTime(now);
  e.t_abs = SignedSeconds(start_time_, now);
  ClearOpt(&e.t_rel);
  ClearOpt(&e.msg);
  if (ABSL_PREDICT_FALSE(c.has_pending_stack)) {
    // The first stack delivered of the generation: symbolize them all.
    if (fill_) {
      tables_.SymbolizeFrames();
      // Symbolizing moved the frames (inline chains): look the stack up again.
      tables_.FindStack(c.pending_stack_id, &c.pending_stack);
    }
    e.stack = c.pending_stack;
    c.has_pending_stack = false;
  } else {
    e.stack = {};
  }
}

void GenerationDecoder::LogThread(const Cursor& c) {
  SpeculationLog::Entry entry{SpeculationLog::Op::kThread, c.thread_id};
  entry.has_records = c.has_head;
  if (c.has_head) {
    // A leading thread_status overwrites the start time and regions (and the name if it
    // gives one) before anything reads them.
    const bool restated = c.head_type == T(EventType::kThreadStatus);
    entry.default_name = !restated || c.head_args[1] == 0;
    entry.default_times = !restated;
    if (entry.default_name) entry.name = c.ts->name;
    entry.start_time = c.ts->start_time;
  }
  log_->AddEntry(std::move(entry));
}

GenerationDecoder::Outcome GenerationDecoder::SiteError(const Cursor& c) {
  return Fail(HeadError(c, absl::StrFormat("%s: site ID %d is not in the site table",
                                           specs_[c.head_type]->name, c.head_args[1])));
}

bool GenerationDecoder::CheckStrings(const Cursor& c, const TypeInfo& info) {
  const uint64_t* a = c.head_args;
  for (int i = 0; i < info.nstrings; ++i) {
    const uint8_t index = info.strings[i];
    if (a[index] != 0 && tables_.FindString(a[index]) == nullptr) {
      const format::EventSpec* spec = specs_[c.head_type];
      return FailFalse(HeadError(c, absl::StrFormat("%s: %s %d is not in the string table",
                                                    spec->name, spec->args[index].name, a[index])));
    }
  }
  return true;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline GenerationDecoder::Outcome GenerationDecoder::ProcessTrace2(
    Cursor& c, const TypeInfo& info, bool common_done) {
  const uint8_t type = c.head_type;
  const uint64_t* a = c.head_args;
  // A Trace2 row: dt, site, then the row's own arguments.
  const SiteInfo* site = tables_.FindSite(a[1]);
  if (ABSL_PREDICT_FALSE(site == nullptr)) return SiteError(c);
  // All string IDs below string_limit() exist (0 = none included): one comparison on the
  // usual dense table (str_a/str_b cover every string argument of the row, or force the
  // general check); the general lookup otherwise.
  if (ABSL_PREDICT_FALSE((a[info.str_a] | a[info.str_b]) >= tables_.string_limit())) {
    if (!CheckStrings(c, info)) return kError;
  }
  const uint64_t now = c.time;
  if (!common_done) FillCommon(c, type, now);
  Event& e = event_;
  e.kind = info.kind;
  e.file = site->file;
  e.line = site->line;
  e.repo = site->event_repo;
  e.category = site->category;
  e.label = site->label;
  ThreadState& ts = *c.ts;
  auto innermost = [&ts]() { return ts.regions.empty() ? ts.start_time : ts.regions.back(); };
  switch (type) {
    case T(EventType::kRegionEnter):
      if (ABSL_PREDICT_FALSE(ts.regions.size() >= kMaxRegionDepth)) {
        return Fail(HeadError(c, "regions nest too deep"));
      }
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      ts.regions.push_back(now);
      if (a[2] != 0) StoreOpt(&e.msg, *tables_.FindString(a[2]));
      return kEvent;
    case T(EventType::kRegionLeave):
      if (ABSL_PREDICT_FALSE(ts.regions.empty())) {
        return Fail(HeadError(c, "region_leave with no open region on the thread"));
      }
      StoreOpt(&e.t_rel, SignedSeconds(ts.regions.back(), now));
      ts.regions.pop_back();
      if (a[2] != 0) StoreOpt(&e.msg, *tables_.FindString(a[2]));
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    case T(EventType::kData):
      StoreOpt(&e.t_rel, SignedSeconds(innermost(), now));
      e.value_kind = ValueKind::kString;
      e.value_string = Str(a[2]);
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    case T(EventType::kDataInt): {
      StoreOpt(&e.t_rel, SignedSeconds(innermost(), now));
      e.value_kind = ValueKind::kInt;
      e.value_int = format::ZigzagDecode(a[2]);
      char* const end = e.int_buffer + sizeof(e.int_buffer);
      const char* const begin = FormatDecimalBackward(e.value_int, end);
      e.value_string = absl::string_view(begin, end - begin);
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    }
    case T(EventType::kDataJson):
      StoreOpt(&e.t_rel, SignedSeconds(innermost(), now));
      e.value_kind = ValueKind::kJson;
      e.value_string = Str(a[2]);
      e.nesting = 1 + static_cast<int>(ts.regions.size());
      return kEvent;
    default:
      return ProcessOther(c);
  }
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline GenerationDecoder::Outcome GenerationDecoder::CheckTrace2(
    Cursor& c, const TypeInfo& info) {
  const uint8_t type = c.head_type;
  const uint64_t* a = c.head_args;
  // The checks of ProcessTrace2, in the same order (so that the same error is reported).
  if (ABSL_PREDICT_FALSE(tables_.FindSite(a[1]) == nullptr)) return SiteError(c);
  if (ABSL_PREDICT_FALSE((a[info.str_a] | a[info.str_b]) >= tables_.string_limit())) {
    if (!CheckStrings(c, info)) return kError;
  }
  ThreadState& ts = *c.ts;
  const uint64_t now = c.time;
  Event& e = event_;
  switch (type) {
    case T(EventType::kRegionEnter):
      if (ABSL_PREDICT_FALSE(ts.regions.size() >= kMaxRegionDepth)) {
        return Fail(HeadError(c, "regions nest too deep"));
      }
      ts.regions.push_back(now);
      break;
    case T(EventType::kRegionLeave):
      if (ABSL_PREDICT_FALSE(ts.regions.empty())) {
        return Fail(HeadError(c, "region_leave with no open region on the thread"));
      }
      ts.regions.pop_back();
      break;
    case T(EventType::kData):
    case T(EventType::kDataInt):
    case T(EventType::kDataJson):
      break;
    default:
      // The other rows have checks and state of their own: the full path.
      return ProcessTrace2(c, info, /*common_done=*/false);
  }
  e.kind = info.kind;
  e.wire_type = type;
  e.thread_id = c.thread_id;
  e.ticks = now;
  c.has_pending_stack = false;  // the stack would have gone to this event
  return kEvent;
}

// The rows of ProcessTrace2 that are not on the hot path; the common and site fields are
// set.
GenerationDecoder::Outcome GenerationDecoder::ProcessOther(Cursor& c) {
  ThreadState& ts = *c.ts;
  const uint8_t type = c.head_type;
  const uint64_t* a = c.head_args;
  const uint64_t now = c.time;
  Event& e = event_;
  switch (type) {
    case T(EventType::kVersion):
      e.exe = Str(a[2]);
      state_->saw_process_start = true;
      if (log_ != nullptr) log_->Add(SpeculationLog::Op::kProcessStart, 0);
      break;
    case T(EventType::kTooManyFiles):
      break;
    case T(EventType::kStart):
      if (absl::Status s = SplitList(c, a[2], &e.argv); !s.ok()) return Fail(std::move(s));
      state_->saw_process_start = true;
      if (log_ != nullptr) log_->Add(SpeculationLog::Op::kProcessStart, 0);
      break;
    case T(EventType::kExit):
      e.code = format::ZigzagDecode(a[2]);
      break;
    case T(EventType::kSignal):
      e.signo = a[2];
      break;
    case T(EventType::kAtexit):
      ts.regions.clear();
      e.code = format::ZigzagDecode(a[2]);
      break;
    case T(EventType::kError):
      SetOptStr(&e.msg, a[2]);
      SetOptStr(&e.fmt, a[3]);
      break;
    case T(EventType::kCmdPath):
      e.cmd_path = Str(a[2]);
      break;
    case T(EventType::kCmdAncestry):
      if (absl::Status s = SplitList(c, a[2], &e.ancestry); !s.ok()) return Fail(std::move(s));
      break;
    case T(EventType::kCmdName):
      e.cmd_name = Str(a[2]);
      SetOptStr(&e.cmd_hierarchy, a[3]);
      break;
    case T(EventType::kCmdMode):
      e.cmd_mode = Str(a[2]);
      break;
    case T(EventType::kAlias):
      e.alias = Str(a[2]);
      if (absl::Status s = SplitList(c, a[3], &e.argv); !s.ok()) return Fail(std::move(s));
      break;
    case T(EventType::kChildStart):
      // child_id, class_string, hook_string, cd_string, flags, argv_strlist.
      e.child_id = a[2];
      // As git's targets do: "hook" when there is a hook name, else the class string, else
      // "?" (docs/format.md §13).
      e.child_class = a[4] != 0 ? "hook" : a[3] != 0 ? Str(a[3]) : "?";
      SetOptStr(&e.hook_name, a[4]);
      SetOptStr(&e.cd, a[5]);
      e.use_shell = (a[6] & format::kChildFlagUseShell) != 0;
      e.is_git_command = (a[6] & format::kChildFlagGitCommand) != 0;
      if (absl::Status s = SplitList(c, a[7], &e.argv); !s.ok()) return Fail(std::move(s));
      if (!state_->StartChild(a[2])) {
        return Fail(HeadError(c, absl::StrFormat("child_start for child_id %d, which is already "
                                                 "running",
                                                 a[2])));
      }
      if (log_ != nullptr) log_->Add(SpeculationLog::Op::kChildStart, a[2]);
      break;
    case T(EventType::kChildExit):
    case T(EventType::kChildReady): {
      // child_id, pid, code or ready, elapsed.
      e.child_id = a[2];
      e.pid = format::ZigzagDecode(a[3]);
      e.t_rel = Seconds(a[5]);
      const bool exit = type == T(EventType::kChildExit);
      if (exit) {
        e.code = format::ZigzagDecode(a[4]);
      } else if (a[4] == format::kChildReadyReady) {
        e.ready = "ready";
      } else if (a[4] == format::kChildReadyTimeout) {
        e.ready = "timeout";
      } else if (a[4] == format::kChildReadyError) {
        e.ready = "error";
      } else {
        return Fail(
            HeadError(c, absl::StrFormat("child_ready has an unknown ready value %d", a[4])));
      }
      if (!(exit ? state_->EndChild(a[2]) : state_->ChildReady(a[2]))) {
        return Fail(HeadError(c, absl::StrFormat("%s for child_id %d, which has no child_start in "
                                                 "this process",
                                                 specs_[type]->name, a[2])));
      }
      if (log_ != nullptr) {
        log_->Add(exit ? SpeculationLog::Op::kChildEnd : SpeculationLog::Op::kChildReady, a[2]);
      }
      break;
    }
    case T(EventType::kExec):
      // exec_id, exe_string, argv_strlist.
      e.exec_id = a[2];
      SetOptStr(&e.exec_exe, a[3]);
      if (absl::Status s = SplitList(c, a[4], &e.argv); !s.ok()) return Fail(std::move(s));
      if (!state_->StartExec(a[2])) {
        return Fail(
            HeadError(c, absl::StrFormat("exec for exec_id %d, which is already pending", a[2])));
      }
      if (log_ != nullptr) log_->Add(SpeculationLog::Op::kExecStart, a[2]);
      break;
    case T(EventType::kExecResult):
      e.exec_id = a[2];
      e.code = format::ZigzagDecode(a[3]);
      if (!state_->EndExec(a[2])) {
        return Fail(HeadError(c, absl::StrFormat("exec_result for exec_id %d, which has no exec in "
                                                 "this process",
                                                 a[2])));
      }
      if (log_ != nullptr) log_->Add(SpeculationLog::Op::kExecEnd, a[2]);
      break;
    case T(EventType::kThreadStart):
      if (ts.started) {
        return Fail(HeadError(c, "thread_start for a thread that has already started"));
      }
      ts.started = true;
      if (log_ != nullptr) log_->Add(SpeculationLog::Op::kThreadStart, c.thread_id);
      if (a[2] != 0) ts.name = std::string(Str(a[2]));
      ts.start_time = now;
      e.thread_name = ts.name;
      break;
    case T(EventType::kThreadExit):
      ts.regions.clear();
      e.t_rel = SignedSeconds(ts.start_time, now);
      ts.exited = true;
      break;
    case T(EventType::kDefParam):
      e.param_scope = Str(a[2]);
      e.param = Str(a[3]);
      SetOptStr(&e.param_value, a[4]);
      break;
    case T(EventType::kDefRepo):
      e.repo = static_cast<int64_t>(a[2]);
      e.worktree = Str(a[3]);
      break;
    case T(EventType::kPrintf):
      SetOptStr(&e.msg, a[2]);
      break;
    case T(EventType::kThTimer):
    case T(EventType::kTimer):
      ts.regions.clear();
      e.intervals = a[2];
      e.t_total = Seconds(a[3]);
      e.t_min = Seconds(a[4]);
      e.t_max = Seconds(a[5]);
      break;
    case T(EventType::kThCounter):
    case T(EventType::kCounter):
      ts.regions.clear();
      e.count = a[2];
      break;
    default:
      return Fail(
          HeadError(c, absl::StrFormat("%s may not appear in an event batch", specs_[type]->name)));
  }
  e.nesting = 1 + static_cast<int>(ts.regions.size());
  return kEvent;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline GenerationDecoder::Outcome GenerationDecoder::Process(
    Cursor& c) {
  const TypeInfo& info = types_[c.head_type];
  if (ABSL_PREDICT_TRUE(info.trace2 && !c.restating && !c.ts->exited)) {
    return ProcessTrace2(c, info, /*common_done=*/false);
  }
  return ProcessSlow(c);
}

GenerationDecoder::Outcome GenerationDecoder::ProcessSlow(Cursor& c) {
  ThreadState& ts = *c.ts;
  const uint8_t type = c.head_type;
  const format::EventSpec* spec = specs_[c.head_type];
  const uint64_t* a = c.head_args;
  const uint64_t now = c.time;
  if (ABSL_PREDICT_FALSE(ts.exited)) {
    return Fail(HeadError(c, absl::StrFormat("%s after thread_exit: thread_exit must be the "
                                             "thread's last event",
                                             spec != nullptr ? spec->name : "experimental event")));
  }
  if (ABSL_PREDICT_FALSE(c.restating) && type != T(EventType::kRegionActive)) {
    if (absl::Status s = EndRestatement(c); !s.ok()) return Fail(std::move(s));
  }

  // Records that only update the thread's state.
  switch (type) {
    case T(EventType::kThreadStatus): {
      // dt, name_string, start_time.
      if (c.records != 1) {
        return Fail(HeadError(c,
                              "thread_status must be the first record of the thread's stream in "
                              "a generation"));
      }
      if (a[1] != 0) {
        if (tables_.FindString(a[1]) == nullptr) {
          return Fail(HeadError(c, absl::StrFormat("thread_status name_string %d is not in the "
                                                   "string table",
                                                   a[1])));
        }
        ts.name = std::string(Str(a[1]));
      }
      if (a[2] > now) {
        return Fail(HeadError(c, absl::StrFormat("thread_status start_time %d is after the record "
                                                 "time %d",
                                                 a[2], now)));
      }
      ts.start_time = a[2];
      ts.regions.clear();
      c.restating = true;
      return kSkip;
    }
    case T(EventType::kRegionActive): {
      // dt, site, msg_string, enter_time.
      if (!c.restating) {
        return Fail(HeadError(c,
                              "region_active outside a re-statement: it must follow "
                              "thread_status or another region_active"));
      }
      if (tables_.FindSite(a[1]) == nullptr) {
        return Fail(HeadError(c, absl::StrFormat("site ID %d is not in the site table", a[1])));
      }
      if (a[2] != 0 && tables_.FindString(a[2]) == nullptr) {
        return Fail(
            HeadError(c, absl::StrFormat("msg_string %d is not in the string table", a[2])));
      }
      if (a[3] > now) {
        return Fail(HeadError(c, absl::StrFormat("region_active enter_time %d is after the record "
                                                 "time %d",
                                                 a[3], now)));
      }
      if (ts.regions.size() >= kMaxRegionDepth) return Fail(HeadError(c, "regions nest too deep"));
      ts.regions.push_back(a[3]);
      return kSkip;
    }
    case T(EventType::kStackRef): {
      // dt, stack.
      if (a[1] == 0) {
        c.has_pending_stack = false;
        return kSkip;
      }
      if (!tables_.FindStack(a[1], &c.pending_stack)) {
        return Fail(HeadError(c, absl::StrFormat("stack ID %d is not in the stack table", a[1])));
      }
      c.pending_stack_id = a[1];
      c.has_pending_stack = true;
      return kSkip;
    }
    default:
      break;
  }

  FillCommon(c, type, now);
  Event& e = event_;
  if (ABSL_PREDICT_FALSE(spec == nullptr || spec->experimental)) {
    e.kind = EventKind::kExperimental;
    e.file = {};
    e.line = 0;
    e.repo.reset();
    e.category = {};
    e.label = {};
    e.nesting = 1 + static_cast<int>(ts.regions.size());
    e.experimental_data = c.head_data;
    return kEvent;
  }

  const TypeInfo& info = types_[type];
  if (!info.trace2) {
    return Fail(HeadError(c, absl::StrFormat("%s may not appear in an event batch", spec->name)));
  }
  return ProcessTrace2(c, info, /*common_done=*/true);
}

const Event* GenerationDecoder::Next() {
  // Hot path: cur_ holds a plain Trace2 row; process it, decode the cursor's next record
  // and keep the cursor while its head stays the smallest.
  if (ABSL_PREDICT_TRUE(cur_ != nullptr)) {
    Cursor& c = *cur_;
    const TypeInfo& info = types_[c.head_type];
    if (ABSL_PREDICT_TRUE(info.trace2 && !c.restating && !c.ts->exited)) {
      const Outcome outcome =
          fill_ ? ProcessTrace2(c, info, /*common_done=*/false) : CheckTrace2(c, info);
      if (ABSL_PREDICT_FALSE(outcome == kError)) {
        cur_ = nullptr;
        return nullptr;
      }
      if (ABSL_PREDICT_FALSE(!DecodeHead(c))) {
        // Deliver the processed event first; the error stays in error_ for the next call.
        cur_ = nullptr;
        return &event_;
      }
      if (ABSL_PREDICT_FALSE(c.time >= run_limit_ || !c.has_head)) {
        if (ABSL_PREDICT_TRUE(linear_ && c.has_head)) {
          Reinsert((static_cast<unsigned __int128>(c.time) << 64) | c.index);
        } else {
          Repick(c);
        }
      }
      return &event_;
    }
  }
  return NextSlow();
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

const Event* GenerationDecoder::NextSlow() {
  if (ABSL_PREDICT_FALSE(!error_.ok())) return nullptr;
  if (ABSL_PREDICT_FALSE(pick_at_start_)) {
    pick_at_start_ = false;
    Pick();
  }
  while (cur_ != nullptr) {
    Cursor& c = *cur_;
    const Outcome outcome = Process(c);
    if (ABSL_PREDICT_FALSE(outcome == kError)) {
      cur_ = nullptr;
      return nullptr;
    }
    if (ABSL_PREDICT_FALSE(!DecodeHead(c))) {
      // Deliver the processed event first; the error stays in error_ for the next call.
      cur_ = nullptr;
      return outcome == kEvent ? &event_ : nullptr;
    }
    if (c.time >= run_limit_ || !c.has_head) Repick(c);
    if (outcome == kEvent) return &event_;
    if (!error_.ok()) return nullptr;
  }
  if (!error_.ok()) return nullptr;
  if (!finished_) {
    FinishGeneration();
    finished_ = true;
  }
  return nullptr;
}

}  // namespace tracewire::reader
