// Generations: the advance that closes one generation and opens the next (re-stating every
// live thread), the background advancer, and writing finished generations out.
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

#include <chrono>
#include <mutex>

#include "absl/strings/str_format.h"
#include "format/file_header.h"
#include "format/generation_encoder.h"
#include "format/record_encoder.h"
#include "format/varint.h"
#include "runtime/recorder.h"
#include "runtime/session.h"

namespace tracewire::runtime {
namespace {

void FenceOtherThreads() {
  if (!g_need_fence) syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

void WriteGeneration(Session& s, uint64_t gen, std::string frames) {
  std::string out = format::EncodeFileHeader(format::kFormatVersion);
  if (s.compress && !s.destination.is_datagram()) {
    std::string compressed(ZSTD_compressBound(frames.size()), '\0');
    const size_t n =
        ZSTD_compress(compressed.data(), compressed.size(), frames.data(), frames.size(), 3);
    if (!ZSTD_isError(n)) {
      compressed.resize(n);
      const uint64_t args[] = {gen, frames.size()};
      if (format::AppendRecord(&out, EventType::kCompressedGeneration, args, compressed).ok()) {
        s.destination.Write(out.data(), out.size());
        return;
      }
    }
    out = format::EncodeFileHeader(format::kFormatVersion);
  }
  if (s.destination.is_datagram()) {
    // One datagram per frame: walk the frames with the raw decoder's framing.
    s.destination.Write(out.data(), out.size());
    size_t offset = 0;
    while (offset < frames.size()) {
      const uint8_t* begin = reinterpret_cast<const uint8_t*>(frames.data()) + offset;
      const uint8_t* p = begin + 1;
      const uint8_t* end = reinterpret_cast<const uint8_t*>(frames.data()) + frames.size();
      const format::EventSpec* spec = format::LookupSpec(*begin);
      uint64_t value = 0;
      uint64_t length = 0;
      for (const format::ArgSpec& arg : spec->Args()) {
        format::GetUvarint(&p, end, &value);
        if (arg.type == format::ArgType::kLength) length = value;
      }
      if (spec->has_data) {
        format::GetUvarint(&p, end, &value);
        length = value;
      }
      const size_t size = (p - begin) + length;
      s.destination.Write(begin, size);
      offset += size;
    }
    return;
  }
  out.append(frames);
  s.destination.Write(out.data(), out.size());
}

void AdvancerLoop() {
  Session& s = GetSession();
  std::unique_lock<std::mutex> lock(s.advancer_mu);
  while (!s.advancer_stop) {
    s.advancer_cv.wait_for(lock, std::chrono::milliseconds(s.generation_ms),
                           [&] { return s.advancer_stop || s.advance_requested.load(); });
    if (s.advancer_stop) break;
    s.advance_requested = false;
    lock.unlock();
    AdvanceGeneration(false);
    lock.lock();
  }
}

}  // namespace

// Writes thread_status and one region_active per open region. Requires BeginEvent or
// exclusive ownership (advancer, with output_mu and tables_mu held: `locked`).
void WriteRestatement(ThreadState* ts, bool locked) {
  Session& s = GetSession();
  uint64_t now;
  uint64_t dt = StampEvent(ts, &now);
  const uint64_t name_id = UniqueStringImpl(ts, ts->name, locked);
  WriteEvent(ts, EventType::kThreadStatus, {dt, name_id, ts->start_time});
  for (const RegionFrame& frame : ts->regions) {
    if (ts->pos > ts->limit) {
      if (locked) {
        AppendBatchLocked(s, ts);
      } else {
        FlushBatch(ts);
      }
    }
    const uint64_t site_id =
        locked ? GenSiteIdLocked(s, ts->gen, frame.site_index) : GenSiteId(ts, frame.site_index);
    const uint64_t msg_id =
        frame.has_msg
            ? UniqueStringImpl(
                  ts, absl::string_view(ts->msg_arena.data() + frame.msg_offset, frame.msg_length),
                  locked)
            : 0;
    dt = StampEvent(ts, &now);
    WriteEvent(ts, EventType::kRegionActive, {dt, site_id, msg_id, frame.enter_time});
  }
  ts->pending_status = false;
}

void OpenGenerationLocked(Session& s, uint64_t gen) {
  InternLocked(s, gen, s.sid);
  GenSiteIdLocked(s, gen, s.signal_site_index);
}

void StartAdvancer(Session& s) {
  s.advancer_stop = false;
  s.advancer = std::thread(AdvancerLoop);
}

void StopAdvancer(Session& s) {
  {
    std::lock_guard<std::mutex> lock(s.advancer_mu);
    s.advancer_stop = true;
  }
  s.advancer_cv.notify_all();
  if (s.advancer.joinable()) s.advancer.join();
}

void AdvanceGeneration(bool final) {
  Session& s = GetSession();
  std::lock_guard<std::mutex> advance_lock(s.advance_mu);
  std::string frames;
  uint64_t gen = 0;
  {
    std::lock_guard<std::mutex> registry_lock(s.registry_mu);
    const uint64_t word = g_gen_word.load(std::memory_order_acquire);
    if ((word & kClosed) != 0) return;
    gen = word >> 2;
    g_gen_word.store(word | kAdvancing, std::memory_order_seq_cst);
    FenceOtherThreads();
    for (ThreadState* ts : s.threads) {
      while (ts->in_event.load(std::memory_order_acquire) != 0) sched_yield();
    }
    // Every thread is outside an event: the recorder owns all thread states now.
    std::lock_guard<std::mutex> output_lock(s.output_mu);
    std::lock_guard<std::mutex> tables_lock(s.tables_mu);
    bool anything_new = !s.gen_frames.empty() || final;
    for (ThreadState* ts : s.threads) {
      if (ts->pos != ts->restate_end || ts->batches_flushed != 0) anything_new = true;
    }
    if (!anything_new) {
      g_gen_word.store(word, std::memory_order_release);
      return;
    }
    for (ThreadState* ts : s.threads) {
      AppendBatchLocked(s, ts);
      AppendStringsLocked(s, ts);
    }
    const uint64_t sid_id = InternLocked(s, gen, s.sid);
    const uint64_t name_id = s.has_cmd_name ? InternLocked(s, gen, s.cmd_name) : 0;
    const uint64_t hierarchy_id = s.has_cmd_name ? InternLocked(s, gen, s.hierarchy) : 0;
    s.sites.MoveTo(&s.gen_frames, gen);
    s.stacks.MoveTo(&s.gen_frames, gen);
    s.strings.MoveTo(&s.gen_frames, gen);
    const format::ClockSync sync = TakeClockSync();
    const uint64_t sync_args[] = {gen,
                                  sync.freq,
                                  sync.trace_time,
                                  sync.mono_ns,
                                  sync.wall_sec,
                                  sync.wall_nsec,
                                  format::ZigzagEncode(sync.utc_offset_sec)};
    format::AppendRecord(&s.gen_frames, EventType::kClockSync, sync_args).IgnoreError();
    const uint64_t info_args[] = {gen, sid_id, s.pid, s.start_time, name_id, hierarchy_id};
    format::AppendRecord(&s.gen_frames, EventType::kProcessInfo, info_args).IgnoreError();
    const uint64_t end_args[] = {gen};
    format::AppendRecord(&s.gen_frames, EventType::kEndOfGeneration, end_args).IgnoreError();
    frames.swap(s.gen_frames);

    // Open the next generation.
    s.interned.clear();
    s.stack_ids.clear();
    s.next_site_id = 0;
    s.next_string_id.store(1, std::memory_order_relaxed);
    const uint64_t new_gen = gen + 1;
    const uint64_t new_word = final ? kClosed : new_gen << 2;
    if (!final) {
      OpenGenerationLocked(s, new_gen);
      for (ThreadState* ts : s.threads) {
        ts->gen = new_gen;
        ts->gen_word = new_word;
        ts->next_string_id = ts->string_id_limit = 0;
        ts->pos = ts->body;
        ts->base_time = ts->last_time;
        ts->batches_flushed = 0;
        WriteRestatement(ts, true);
        ts->restate_end = ts->pos;
      }
    }
    g_gen_word.store(new_word, std::memory_order_release);
  }
  // Compress and write with the threads running again.
  WriteGeneration(s, gen, std::move(frames));
}

}  // namespace tracewire::runtime
