// The region hot path: tw_region_enter_site and tw_region_leave_site, what the
// tw_region_enter/tw_region_leave macros call at a literal call site.
//
// The fast path handles the common case only: the thread attached and current with the
// generation, room in its batch, the call site in the thread's hot sites for this repo
// and generation (hot_sites.h: the full path puts it there), room for the open-region
// frame (enter) or an innermost open region without a message (leave). The process-wide
// conditions (no full fence, no stacks of regions, the counter as the clock) are tested by
// the full path before it fills a hot site, so with any of them off no call finds one.
// The fast path tests all of that before it writes anything, and otherwise hands the
// call, unchanged, to the full path (RegionEnterAtCallsiteSlow /
// RegionLeaveAtCallsiteSlow) as a tail call: the fast path calls no function. It writes
// the same bytes as the full path.
//
// On Intel cores the clock read (rdtsc, about twenty micro-ops) hardly overlaps the work
// around it: the event costs about the read plus its own instructions, so the path is
// kept short. The site's ID is one load from the thread state (no chain through the
// call-site word and the site registry), already encoded with the empty message as the
// event's last bytes (one 8-byte store); the hot site's generation word stands for the
// thread's in the generation test; the leave's test reads the innermost frame even on an
// empty stack (region_stack.h's floor frame); the tests use no more registers than the
// call leaves free (no register saved on the stack); and the loads the event's bytes need
// are made before the clock read, so that they overlap it.
#include "runtime/region_at_callsite.h"

#include <atomic>
#include <cstdint>
#include <cstring>

#include "format/event_spec.h"
#include "format/varint.h"
#include "runtime/clock.h"
#include "runtime/hot_sites.h"
#include "runtime/recorder.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {
namespace {

using format::EventType;

template <EventType kType>
__attribute__((always_inline)) inline bool RegionFast(tw_callsite* site, int repo_id) {
  ThreadState* ts = t_state;
  if (__builtin_expect(ts == nullptr, 0)) return false;
  const HotSite& hot = *HotSiteAt(ts->hot_sites, site);
  if (ts->in_event.load(std::memory_order_relaxed) != 0) return false;  // signal re-entry
  ts->in_event.store(1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // LightFence without g_need_fence
  // The hot site's generation word stands for the thread's: it was the thread's when the
  // full path filled the site, the thread's word changes only to a newer g_gen_word, and
  // g_gen_word never takes an earlier value again. acquire, as BeginEvent's.
  bool usual = ts->pos.get() <= ts->limit.get() &&
               g_gen_word.load(std::memory_order_acquire) == hot.gen_word &&
               // relaxed: only compared with the word the full path saw.
               __atomic_load_n(&site->word, __ATOMIC_RELAXED) == hot.word && hot.repo_id == repo_id;
  if (kType == EventType::kRegionEnter) {
    usual = usual && ts->regions.has_room();
  } else {
    usual = usual && ts->regions.back_is_plain();  // an open region, without a message
  }
  if (__builtin_expect(!usual, 0)) {
    ts->in_event.store(0, std::memory_order_release);
    return false;
  }
  // Loaded before the clock read, so that they overlap it.
  uint8_t* p = ts->pos.get();
  const uint64_t last = ts->last_time.get();
  const uint64_t tail = hot.tail;
  uint64_t now = counter::Read();
  if (__builtin_expect(now <= last, 0)) now = last + 1;
  ts->last_time.set(now);
  const uint64_t dt = now - last;
  p[0] = static_cast<uint8_t>(kType);
  // Then the site's varint and the empty message, stored as one word (the batch has
  // kMaxEventSize bytes of room past pos; the bytes past the event are not part of it).
  if (__builtin_expect(dt < 0x80, 1)) {
    p[1] = static_cast<uint8_t>(dt);
    memcpy(p + 2, &tail, sizeof(tail));
    p += 2 + HotTailSize(hot);
  } else {
    p = format::PutUvarint(p + 1, dt);
    memcpy(p, &tail, sizeof(tail));
    p += HotTailSize(hot);
  }
  ts->pos.publish(p);
  if (kType == EventType::kRegionEnter) {
    ts->regions.push_plain_unchecked(hot.index, now);
  } else {
    ts->regions.pop_back();
  }
  ts->in_event.store(0, std::memory_order_release);
  return true;
}

// The fast path's widest event: type, a 10-byte delta and the 8-byte tail word.
static_assert(1 + format::kMaxVarintSize + sizeof(uint64_t) <= kMaxEventSize);

}  // namespace
}  // namespace tracewire::runtime

using tracewire::format::EventType;
using tracewire::runtime::RegionFast;

void tw_region_enter_site(struct tw_callsite* site, const char* file, int line,
                          const char* category, const char* label, int repo_id) {
  if (__builtin_expect(RegionFast<EventType::kRegionEnter>(site, repo_id), 1)) return;
  tracewire::runtime::RegionEnterAtCallsiteSlow(site, file, line, category, label, repo_id);
}

void tw_region_leave_site(struct tw_callsite* site, const char* file, int line,
                          const char* category, const char* label, int repo_id) {
  if (__builtin_expect(RegionFast<EventType::kRegionLeave>(site, repo_id), 1)) return;
  tracewire::runtime::RegionLeaveAtCallsiteSlow(site, file, line, category, label, repo_id);
}
