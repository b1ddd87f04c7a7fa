// SiteContentCache: a thread's map from call-site content to site registry index, looked
// up with string views so a hit neither allocates nor locks.
#ifndef TRACEWIRE_RUNTIME_SITE_CACHE_H_
#define TRACEWIRE_RUNTIME_SITE_CACHE_H_

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "format/generation_records.h"

namespace tracewire::runtime {

// A call site's content as views (absent strings have has_* false).
struct SiteView {
  absl::string_view file, category, label;
  bool has_file = false, has_category = false, has_label = false;
  uint64_t line = 0;
  uint64_t repo = 0;
};

// Views of C arguments (NULL = absent; repo_id < 0 = no repository).
SiteView ViewOfArgs(const char* file, int line, const char* category, const char* label,
                    int repo_id);
// Views into `site`.
SiteView ViewOfSite(const format::Site& site);

struct SiteViewHash {
  using is_transparent = void;
  size_t operator()(const SiteView& v) const {
    return absl::HashOf(v.file, v.has_file, v.category, v.has_category, v.label, v.has_label,
                        v.line, v.repo);
  }
  size_t operator()(const format::Site& s) const { return (*this)(ViewOfSite(s)); }
};

struct SiteViewEq {
  using is_transparent = void;
  static bool Same(const SiteView& a, const SiteView& b) {
    return a.has_file == b.has_file && a.has_category == b.has_category &&
           a.has_label == b.has_label && a.line == b.line && a.repo == b.repo && a.file == b.file &&
           a.category == b.category && a.label == b.label;
  }
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    return Same(View(a), View(b));
  }
  static SiteView View(const SiteView& v) { return v; }
  static SiteView View(const format::Site& s) { return ViewOfSite(s); }
};

using SiteContentCache = absl::flat_hash_map<format::Site, uint32_t, SiteViewHash, SiteViewEq>;

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SITE_CACHE_H_
