// The generation structure check of GenerationDecoder::Start: exactly one clock_sync and
// one process_info, the tables, a generation number above the process's previous one, the
// event batches grouped by thread and the first record of each thread decoded; and the
// error messages that name the generation, thread, record and byte offset.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "format/event_spec.h"
#include "format/varint.h"
#include "reader/generation_decoder.h"
#include "reader/thread_merge-inl.h"

namespace tracewire::reader {
namespace {

using format::EventType;

std::string DefaultThreadName(uint64_t thread_id) {
  if (thread_id == 0) return "main";
  return absl::StrFormat("th%02d:unknown", thread_id);
}

}  // namespace

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
  SetVersion(gen.version);
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
  if (state->last_gen.has_value() && gen.gen != *state->last_gen + 1) state->ForgetAcrossGap();
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

}  // namespace tracewire::reader
