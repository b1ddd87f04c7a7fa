// The fatal-signal path: records the signal and writes what is buffered without
// allocating and without waiting on a lock it cannot get.
#include <unistd.h>

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

// Encodes a small record into a caller buffer (async-signal-safe).
size_t EncodeSmall(uint8_t* out, EventType type, std::initializer_list<uint64_t> args) {
  uint8_t* p = out;
  *p++ = static_cast<uint8_t>(type);
  for (uint64_t a : args) p = format::PutUvarint(p, a);
  return p - out;
}

}  // namespace

void EmergencyFlush(int signo) {
  Session& s = GetSession();
  if (s.emergency.exchange(true)) return;
  ThreadState* self = t_state;
  // Record the signal on this thread unless it was interrupted inside an event.
  if (self != nullptr && self->in_event.load(std::memory_order_relaxed) == 0 &&
      (g_gen_word.load() & (kClosed | kAdvancing)) == 0 && self->gen_word == g_gen_word.load()) {
    self->in_event.store(1, std::memory_order_relaxed);
    if (self->pos > self->limit) {
      // No room and no lock may be taken safely: skip the event rather than risk a deadlock.
    } else {
      SiteEntry& entry = s.site_registry.Get(s.signal_site_index);
      const uint64_t word = entry.gen_id.load();
      if (word != 0 && (word >> 32) == (self->gen & 0xffffffffu)) {
        uint64_t now;
        const uint64_t dt = StampEvent(self, &now);
        WriteEvent(self, EventType::kSignal, {dt, word & 0xffffffffu, uint64_t(signo)});
      }
    }
    self->in_event.store(0, std::memory_order_release);
  }
  const uint64_t word = g_gen_word.exchange(kClosed);
  if ((word & kClosed) != 0) return;
  const uint64_t gen = word >> 2;
  // Take the locks if they can be had within ~100 ms; otherwise write without that part.
  auto try_lock = [](std::mutex& mu) {
    for (int i = 0; i < 1000; ++i) {
      if (mu.try_lock()) return true;
      usleep(100);
    }
    return false;
  };
  const std::string header = format::EncodeFileHeader(format::kFormatVersion);
  s.destination.Write(header.data(), header.size());
  if (try_lock(s.output_mu)) {
    s.destination.Write(s.gen_frames.data(), s.gen_frames.size());
  }
  if (try_lock(s.registry_mu)) {
    for (ThreadState* ts : s.threads) {
      const size_t size = ts->pos - ts->body;
      if (size == 0 || ts->gen != gen) continue;
      uint8_t head[format::kMaxBatchHeaderSize];
      const size_t n =
          EncodeSmall(head, EventType::kEventBatch, {gen, ts->thread_id, ts->base_time, size});
      s.destination.Write(head, n);
      s.destination.Write(ts->body, size);
      const size_t strings = ts->strings_size.load(std::memory_order_acquire);
      if (strings != 0) {
        const size_t m = EncodeSmall(head, EventType::kStringBatch, {gen, strings});
        s.destination.Write(head, m);
        s.destination.Write(ts->strings, strings);
      }
    }
  }
  if (try_lock(s.tables_mu)) {
    for (TableBuffer* table : {&s.sites, &s.stacks, &s.strings}) {
      for (const std::string& batch : table->batches)
        s.destination.Write(batch.data(), batch.size());
      if (!table->body.empty()) {
        uint8_t head[32];
        const size_t n = EncodeSmall(head, table->batch_type, {gen, table->body.size()});
        s.destination.Write(head, n);
        s.destination.Write(table->body.data(), table->body.size());
      }
    }
    // process_info needs the sid in this generation's string table: it was interned when
    // the generation opened (see StartRecording / the advance).
    auto it = s.interned.find(s.sid);
    const uint64_t sid_id = it == s.interned.end() ? 0 : it->second;
    const format::ClockSync sync = TakeClockSync(/*signal_safe=*/true);
    uint8_t rec[128];
    size_t n = EncodeSmall(rec, EventType::kClockSync,
                           {gen, sync.freq, sync.trace_time, sync.mono_ns, sync.wall_sec,
                            sync.wall_nsec, format::ZigzagEncode(sync.utc_offset_sec)});
    s.destination.Write(rec, n);
    n = EncodeSmall(rec, EventType::kProcessInfo, {gen, sid_id, s.pid, s.start_time, 0, 0});
    s.destination.Write(rec, n);
    n = EncodeSmall(rec, EventType::kEndOfGeneration, {gen});
    s.destination.Write(rec, n);
  }
}

}  // namespace tracewire::runtime
