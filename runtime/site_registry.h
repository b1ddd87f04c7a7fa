// SiteRegistry: every call site (file, line, category, label/key/name, repo) seen by the
// process gets a stable index for the life of the process; each entry caches its site ID
// in the current generation so the hot path pays one atomic load to find it.
#ifndef TRACEWIRE_RUNTIME_SITE_REGISTRY_H_
#define TRACEWIRE_RUNTIME_SITE_REGISTRY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "format/generation_records.h"

namespace tracewire::runtime {

// One registered site. `site` is immutable after registration.
struct SiteEntry {
  format::Site site;
  std::atomic<uint64_t> gen_id{0};  // (generation & 0xffffffff) << 32 | site ID
  // Its category is filtered out (TRACEWIRE_CATEGORIES): events of this site are dropped.
  // Decided at registration, immutable.
  bool filtered = false;
};

class SiteRegistry {
 public:
  // 16 M sites in chunks of 16384 entries. A chunk is reserved whole (2.4 MB of address
  // space) but its pages are touched only as its entries are registered; the chunk table
  // is small (8 KB) because every process zeroes it at start-up, traced or not.
  static constexpr uint32_t kChunkBits = 14;
  static constexpr uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr uint32_t kMaxChunks = 1024;

  // Returns the index of the site with this content, registering it if new. Thread-safe;
  // takes a mutex (callers cache the index). Returns UINT32_MAX if the registry is full.
  uint32_t Intern(const format::Site& site);

  // The entry at `index` (from Intern); lock-free.
  SiteEntry& Get(uint32_t index) {
    // acquire, pairs with Intern's release of a new chunk.
    return chunks_[index >> kChunkBits].load(std::memory_order_acquire)[index & (kChunkSize - 1)];
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<format::Site, uint32_t> index_;
  uint32_t size_ = 0;
  std::atomic<SiteEntry*> chunks_[kMaxChunks] = {};
};

// Builds a format::Site from C arguments (NULL strings become "absent"; repo_id < 0 is no
// repository).
format::Site MakeSite(const char* file, int line, const char* category, const char* label,
                      int repo_id);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SITE_REGISTRY_H_
