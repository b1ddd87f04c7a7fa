// The region events of literal call sites (tw_region_enter_site, tw_region_leave_site):
// a fast path for the common case and the full path it hands everything else to.
#ifndef TRACEWIRE_RUNTIME_REGION_AT_CALLSITE_H_
#define TRACEWIRE_RUNTIME_REGION_AT_CALLSITE_H_

#include <atomic>
#include <cstdint>

#include "runtime/recorder.h"
#include "runtime/site_registry.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {

// The full region_enter / region_leave of a literal call site: attaches the thread,
// catches up with a new generation, flushes a full batch, registers the site, interns its
// ID, captures a stack, reads any clock. The fast path (region_at_callsite.cc) calls them
// for whatever it does not handle itself, before it has changed anything.
void RegionEnterAtCallsiteSlow(tw_callsite* site, const char* file, int line, const char* category,
                               const char* label, int repo_id) __attribute__((noinline));
void RegionLeaveAtCallsiteSlow(tw_callsite* site, const char* file, int line, const char* category,
                               const char* label, int repo_id) __attribute__((noinline));

// After the full path recorded an event of literal call site `site` (registry `index`,
// called with `repo_id`), remembers it in the thread's hot sites so that its next events
// in this generation take the fast path. Does nothing when the fast path is off for the
// process, or when the site's word or ID is not what the fast path would check against.
// Requires BeginEvent (the thread's own state, inside an event).
inline void RememberHotSite(ThreadState* ts, tw_callsite* site, int repo_id, uint32_t index) {
  // relaxed: set before any event and constant afterwards.
  if (!g_region_fast_path.load(std::memory_order_relaxed)) return;
  const uint64_t repo_tag = repo_id < 0 ? 0 : static_cast<uint64_t>(repo_id) + 1;
  const uint64_t word = (repo_tag << 32) | (uint64_t{index} + 1);
  // relaxed: only compared; the registry entry is read below with acquire.
  if (__atomic_load_n(&site->word, __ATOMIC_RELAXED) != word) return;
  // acquire, as GenSiteId's: the site record is in the generation's table.
  const uint64_t gen_id = g_site_registry->Get(index).gen_id.load(std::memory_order_acquire);
  if (gen_id == 0 || (gen_id >> 32) != (ts->gen.get() & 0xffffffffu)) return;
  HotSite& hot = *HotSiteAt(ts->hot_sites, site);
  hot.word = word;
  hot.gen_word = ts->gen_word.get();
  hot.repo_id = repo_id;
  hot.index = index;
  hot.tail = MakeHotTail(static_cast<uint32_t>(gen_id));
}

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_REGION_AT_CALLSITE_H_
