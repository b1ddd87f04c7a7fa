// DataMap: the `data` values of one region span (trace2receiver's data[<cat>][<key>]), kept
// for reuse: a span of the OTLP exporter's pool clears its map and the next region fills the
// same entries again, so a region's data costs no allocation once the pool is warm. Render
// writes the JSON object exactly as a std::map<category, std::map<key, json>> rendered with
// JsonWriter would (categories, then keys, in byte order; a later value of a key replaces
// the earlier one).
#ifndef TRACEWIRE_READER_TARGETS_OTLP_DATA_MAP_H_
#define TRACEWIRE_READER_TARGETS_OTLP_DATA_MAP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace tracewire::targets::otlp {

class DataMap {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // Forgets the entries (their storage is kept for the next ones).
  void Clear();
  // The JSON text slot of (category, key), emptied; a new entry if the pair is new.
  std::string* Set(absl::string_view category, absl::string_view key);
  // Appends {"<cat>":{"<key>":<json>,...},...} to *out.
  void Render(std::string* out) const;

 private:
  struct Entry {
    std::string category;
    std::string key;
    std::string json;
  };
  // Past this many entries, lookups go through index_ instead of a scan.
  static constexpr size_t kScanLimit = 16;

  static std::string IndexKey(absl::string_view category, absl::string_view key);

  std::vector<Entry> entries_;  // the first size_ are live
  size_t size_ = 0;
  absl::flat_hash_map<std::string, uint32_t> index_;  // filled past kScanLimit
  mutable std::vector<uint32_t> order_;               // Render's sort (scratch)
};

}  // namespace tracewire::targets::otlp

#endif  // TRACEWIRE_READER_TARGETS_OTLP_DATA_MAP_H_
