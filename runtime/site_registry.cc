#include "runtime/site_registry.h"

#include <new>

#include "runtime/category_filter.h"

namespace tracewire::runtime {

format::Site MakeSite(const char* file, int line, const char* category, const char* label,
                      int repo_id) {
  format::Site site;
  if (file != nullptr) site.file = file;
  site.line = line < 0 ? 0 : static_cast<uint64_t>(line);
  if (category != nullptr) site.category = category;
  if (label != nullptr) site.label = label;
  site.repo = repo_id < 0 ? 0 : static_cast<uint64_t>(repo_id) + 1;
  return site;
}

uint32_t SiteRegistry::Intern(const format::Site& site) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(site);
  if (it != index_.end()) return it->second;
  if (size_ >= kChunkSize * kMaxChunks) return UINT32_MAX;
  const uint32_t index = size_++;
  const uint32_t chunk = index >> kChunkBits;
  if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {  // relaxed: mu_ is held
    // Raw storage: an entry is constructed when it is registered, so a new chunk's pages
    // are only touched as its entries are used (constructing a whole chunk up front would
    // cost a page fault per 4 KiB).
    void* storage = ::operator new(sizeof(SiteEntry) * kChunkSize);
    // release, pairs with Get's acquire: a lock-free reader of the chunk sees its storage.
    chunks_[chunk].store(static_cast<SiteEntry*>(storage), std::memory_order_release);
  }
  // relaxed: mu_ is held. The entry reaches other threads through a release of its index
  // (a call site's word) or of its gen_id, or under mu_.
  SiteEntry* entry =
      new (&chunks_[chunk].load(std::memory_order_relaxed)[index & (kChunkSize - 1)]) SiteEntry;
  entry->site = site;
  entry->filtered = !CategoryRecorded(site.category.has_value() ? *site.category : "");
  index_.emplace(site, index);
  return index;
}

}  // namespace tracewire::runtime

#include "runtime/site_cache.h"

namespace tracewire::runtime {

SiteView ViewOfArgs(const char* file, int line, const char* category, const char* label,
                    int repo_id) {
  SiteView v;
  if (file != nullptr) v.file = file, v.has_file = true;
  if (category != nullptr) v.category = category, v.has_category = true;
  if (label != nullptr) v.label = label, v.has_label = true;
  v.line = line < 0 ? 0 : static_cast<uint64_t>(line);
  v.repo = repo_id < 0 ? 0 : static_cast<uint64_t>(repo_id) + 1;
  return v;
}

SiteView ViewOfSite(const format::Site& site) {
  SiteView v;
  if (site.file) v.file = *site.file, v.has_file = true;
  if (site.category) v.category = *site.category, v.has_category = true;
  if (site.label) v.label = *site.label, v.has_label = true;
  v.line = site.line;
  v.repo = site.repo;
  return v;
}

}  // namespace tracewire::runtime
