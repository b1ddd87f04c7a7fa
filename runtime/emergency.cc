// The fatal-signal path: records the signal and writes what is buffered without
// allocating and without waiting long on a lock or a thread it cannot get.
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <mutex>

#include "format/generation_records.h"
#include "runtime/flight_recorder.h"
#include "runtime/generation_trailer.h"
#include "runtime/recorder.h"
#include "runtime/session.h"

namespace tracewire::runtime {
namespace {

// Waits at most `ms` milliseconds for `mu` (which the interrupted code, or a thread that
// will never run again, may hold). pthread_mutex_trylock takes no lock of its own and
// allocates nothing.
bool TryLockFor(std::mutex& mu, int ms) {
  for (int waited_us = 0;; waited_us += 100) {
    if (mu.try_lock()) return true;
    if (waited_us >= ms * 1000) return false;
    usleep(100);
  }
}

// Unlocks at scope exit what was locked.
class LockedIf {
 public:
  LockedIf(std::mutex& mu, int ms) : mu_(mu), locked_(TryLockFor(mu, ms)) {}
  ~LockedIf() {
    if (locked_) mu_.unlock();
  }
  explicit operator bool() const { return locked_; }

 private:
  std::mutex& mu_;
  bool locked_;
};

// Records the signal on the calling thread unless it was interrupted inside an event.
// As BeginEvent does, the thread marks itself inside an event first and then reads the
// generation word: read before the mark, the word could show no advance while an advance
// began and found the thread outside any event, and the signal event would go into a
// batch the advance owns.
void RecordSignal(Session& s, ThreadState* self, int signo) {
  // relaxed (both) and acquire: as in BeginEvent.
  if (self == nullptr || self->in_event.load(std::memory_order_relaxed) != 0) return;
  self->in_event.store(1, std::memory_order_relaxed);
  LightFence();
  const uint64_t word = g_gen_word.load(std::memory_order_acquire);
  // No room and no lock may be taken safely when the batch is full: skip the event.
  if ((word & (kClosed | kAdvancing)) == 0 && self->gen_word.get() == word &&
      self->pos.get() <= BatchLimit(self)) {
    SiteEntry& entry = s.site_registry.Get(s.signal_site_index);
    const uint64_t site = entry.gen_id.load(std::memory_order_acquire);  // acquire: GenSiteId
    if (site != 0 && (site >> 32) == (self->gen.get() & 0xffffffffu)) {
      uint64_t now;
      const uint64_t dt = StampEvent(self, &now);
      WriteEvent(self, EventType::kSignal, {dt, site & 0xffffffffu, uint64_t(signo)});
    }
  }
  self->in_event.store(0, std::memory_order_release);  // release: as EndEvent's
}

// Writes the thread's open batch (unless not `batch`) and string records of generation
// `gen`.
void WriteThreadBuffers(Session& s, const ThreadState* ts, uint64_t gen, bool batch) {
  if (ts->gen.get() != gen) return;
  uint8_t head[kBatchHeaderReserve];
  const size_t size = batch ? ts->pos.get() - BatchBody(ts) : 0;
  if (size != 0) {
    const size_t n = EncodeBatchHeader(head, *ts, size);
    s.destination.Write(head, n);
    s.destination.Write(BatchBody(ts), size);
  }
  // acquire, pairs with AppendStringRecords' release: the records up to it are whole.
  const size_t strings = ts->strings_size.load(std::memory_order_acquire);
  if (strings != 0) {
    const size_t n = EncodeSmallRecord(head, EventType::kStringBatch, {gen, strings});
    s.destination.Write(head, n);
    s.destination.Write(StringRecords(ts), strings);
  }
}

void WriteBuffers(Session& s, const BufferList& list) {
  for (const Buffer* b = list.head; b != nullptr; b = b->next) {
    s.destination.Write(b->data + b->begin, b->size());
  }
}

}  // namespace

void EmergencyFlush(int signo) {
  Session& s = GetSession();
  // A child forked by a traced process shares the parent's buffers (copies) and its trace
  // descriptor until the fork handler closes tracing: a signal it gets before then (or
  // after) must not write the parent's data, which the parent writes itself. getpid(2) is
  // async-signal-safe and asks the kernel (no cached value a fork could leave stale).
  if (s.forked_child || getpid() != static_cast<pid_t>(s.pid)) return;
  if (s.emergency.exchange(true, std::memory_order_relaxed)) return;  // relaxed: a latch
  ThreadState* self = t_state;
  RecordSignal(s, self, signo);
  // Close tracing: from here on no thread starts an event.
  // acq_rel: acquire pairs with the advancer's release of the word it replaces (that
  // generation's state is read below); HeavyFence orders the close before the in_event loads.
  if ((g_gen_word.exchange(kClosed, std::memory_order_acq_rel) & kClosed) != 0) return;
  HeavyFence();
  // A generation being written finishes first (its write gives up after the destination's
  // timeout without progress); then take the recorder's locks in the advancer's order, each
  // if it can be had within a short wait, and write without what could not be had.
  // A compression holding advance_mu gives way to a waiter (see GiveWayFn).
  s.advance_waiters.fetch_add(1, std::memory_order_relaxed);  // relaxed: a count (a hint)
  LockedIf advance(s.advance_mu, s.write_timeout_ms + 100);
  s.advance_waiters.fetch_sub(1, std::memory_order_relaxed);
  const bool flight = s.flight_ring.enabled();
  // A flight recorder dumps its ring first (only with advance_mu: it guards the ring and
  // a dump file another dump may be writing), then the generation being filled.
  if (flight && (!advance || !BeginFlightDumpLocked(s))) return;
  struct EndDump {
    Session& s;
    bool flight;
    ~EndDump() {
      if (flight) EndFlightDumpLocked(s);
    }
  } end_dump{s, flight};
  LockedIf registry(s.registry_mu, 100);
  LockedIf output(s.output_mu, 100);
  // Without the generation's frames so far (or once they were given back: see
  // MaybeRequestAdvance), or without its tables (which the events name), nothing whole can
  // be written: write nothing rather than a generation cut short (the open generation is
  // then the loss). The threads' own string records are tables too: the batches a thread
  // flushed into the generation name them, and they are reached through the registry (a
  // cut on another thread holds it while it waits for this one to leave its event).
  if (!output || !registry || s.filling_overflowed) return;
  LockedIf tables(s.tables_mu, 100);
  if (!tables) return;
  const uint64_t gen = s.filling.gen;
  if (!flight) {
    BeginGenerationOutput(s);
  }
  WriteBuffers(s, s.filling.buffers);
  {
    // Let every other thread finish the event it is in (a bounded wait: a thread stuck
    // inside one keeps its open batch to itself), then write its open batch.
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (ThreadState* ts : s.threads) {
      if (ts != self) {
        for (;;) {
          // acquire (here and below), pairs with EndEvent's release: the batch bytes.
          if (ts->in_event.load(std::memory_order_acquire) == 0) break;
          timespec now;
          clock_gettime(CLOCK_MONOTONIC, &now);
          if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 > 100) {
            break;
          }
          sched_yield();
        }
        if (ts->in_event.load(std::memory_order_acquire) != 0) {  // acquire: as above
          // Its open batch stays its own; its string records (whole up to strings_size)
          // are written for the batches it flushed before.
          WriteThreadBuffers(s, ts, gen, /*batch=*/false);
          continue;
        }
      }
      // The calling thread's batch holds whole events up to pos even if the signal
      // interrupted an event (pos is published after each one).
      WriteThreadBuffers(s, ts, gen, /*batch=*/true);
    }
  }
  for (TableBuffer* table : {&s.sites, &s.stacks, &s.strings}) {
    WriteBuffers(s, table->sealed);
    if (table->open != nullptr && table->body_size != 0) {
      uint8_t head[kTableHeaderReserve];
      const size_t n = EncodeSmallRecord(head, table->batch_type, {gen, table->body_size});
      s.destination.Write(head, n);
      s.destination.Write(table->open->data + kTableHeaderReserve, table->body_size);
    }
  }
  // process_info needs the sid in this generation's string table: it was interned when
  // the generation opened (see Initialize and the advance).
  ProcessInfoIds ids;
  auto it = s.interned.find(s.sid);
  if (it != s.interned.end()) ids.sid = it->second;
  // The command name too, interned with it when it was set and at every generation start.
  if (s.has_cmd_name) {
    auto name = s.interned.find(s.cmd_name);
    auto hierarchy = s.interned.find(s.hierarchy);
    if (name != s.interned.end() && hierarchy != s.interned.end()) {
      ids.name = name->second;
      ids.hierarchy = hierarchy->second;
    }
  }
  uint8_t records[kClosingRecordsMaxSize];
  const size_t n = EncodeClosingRecords(s, gen, ids, /*signal_safe=*/true, records);
  s.destination.Write(records, n);
}

}  // namespace tracewire::runtime
