// HotSite: one entry of a thread's small direct-mapped cache of literal call sites, what
// the region hot path (region_at_callsite.cc) reads instead of the site registry: the
// call site's registry index and its site ID in the thread's generation, found from the
// tw_callsite's address with no chain of loads through the registry.
#ifndef TRACEWIRE_RUNTIME_HOT_SITES_H_
#define TRACEWIRE_RUNTIME_HOT_SITES_H_

#include <bit>
#include <cstddef>
#include <cstdint>

#include "tracewire/tracewire.h"

namespace tracewire::runtime {

// Valid for a call of a literal call site whose word equals `word`, with this `repo_id`,
// while the thread's gen_word equals `gen_word`. The word names the registry entry (repo
// tag and index), so a call site at a reused address (a library unloaded and another
// loaded there) does not match an entry of the old one. An empty entry (word 0) never
// matches: a call site's word is never 0 once the full path has run for it.
// The site's ID in generation gen_word >> 2 is kept as the bytes the event ends with: its
// varint, then the empty message (0), little-endian in the low bytes of `tail`, their
// count in the top byte (MakeHotTail), so the hot path stores them with one 8-byte write.
struct HotSite {
  uint64_t word = 0;
  uint64_t gen_word = 0;
  int repo_id = 0;
  uint32_t index = 0;  // site registry index
  uint64_t tail = 0;   // MakeHotTail(the site's ID)
};

static_assert(sizeof(HotSite) == 32, "HotSiteAt indexes by shifting");

inline constexpr size_t kHotSites = 64;  // per thread: 2 KB

// The bytes of a region event after its time delta, for site ID `site_id`: the ID's
// varint (1 to 5 bytes) and a 0 (no message) in the low bytes, their count in the top one.
inline constexpr uint64_t MakeHotTail(uint32_t site_id) {
  uint64_t bytes = 0;
  unsigned count = 0;
  uint64_t value = site_id;
  while (value >= 0x80) {
    bytes |= ((value & 0x7f) | 0x80) << (8 * count++);
    value >>= 7;
  }
  bytes |= value << (8 * count++);
  ++count;  // the message byte, 0
  return bytes | (uint64_t{count} << 56);
}
static_assert(MakeHotTail(5) == (uint64_t{2} << 56 | 5));
static_assert(std::endian::native == std::endian::little, "the tail is stored as a word");
static_assert(MakeHotTail(300) == (uint64_t{3} << 56 | 0x02ac));

// The entry of `table` (kHotSites entries) that call site `site` maps to: call sites are
// 8-byte statics, often adjacent, so the address's bits above the third pick the entry.
// Computed as a byte offset (a shift and a mask) that the caller's addressing folds in.
inline HotSite* HotSiteAt(HotSite* table, const tw_callsite* site) {
  const uintptr_t offset =
      (reinterpret_cast<uintptr_t>(site) << 2) & ((kHotSites - 1) * sizeof(HotSite));
  return reinterpret_cast<HotSite*>(reinterpret_cast<char*>(table) + offset);
}

// The count of bytes in `hot`'s tail: its top byte, read as a byte (no shift).
inline size_t HotTailSize(const HotSite& hot) {
  return reinterpret_cast<const uint8_t*>(&hot.tail)[sizeof(hot.tail) - 1];
}

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_HOT_SITES_H_
