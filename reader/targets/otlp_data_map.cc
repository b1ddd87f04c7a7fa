#include "reader/targets/otlp_data_map.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "reader/targets/json_writer.h"
#include "reader/targets/output_cursor.h"

namespace tracewire::targets::otlp {

void DataMap::Clear() {
  size_ = 0;
  if (!index_.empty()) index_.clear();
}

std::string DataMap::IndexKey(absl::string_view category, absl::string_view key) {
  return absl::StrCat(category.size(), ":", category, key);
}

std::string* DataMap::Set(absl::string_view category, absl::string_view key) {
  if (size_ <= kScanLimit) {
    for (size_t i = 0; i < size_; ++i) {
      Entry& entry = entries_[i];
      if (entry.key == key && entry.category == category) {
        entry.json.clear();
        return &entry.json;
      }
    }
  } else {
    if (index_.empty()) {
      for (size_t i = 0; i < size_; ++i) {
        index_.emplace(IndexKey(entries_[i].category, entries_[i].key), i);
      }
    }
    auto [it, inserted] = index_.try_emplace(IndexKey(category, key), size_);
    if (!inserted) {
      std::string* json = &entries_[it->second].json;
      json->clear();
      return json;
    }
  }
  if (entries_.size() == size_) entries_.emplace_back();
  Entry& entry = entries_[size_];
  entry.category.assign(category.data(), category.size());
  entry.key.assign(key.data(), key.size());
  entry.json.clear();
  ++size_;
  return &entry.json;
}

void DataMap::Render(std::string* out) const {
  order_.resize(size_);
  for (size_t i = 0; i < size_; ++i) order_[i] = static_cast<uint32_t>(i);
  std::sort(order_.begin(), order_.end(), [this](uint32_t a, uint32_t b) {
    const Entry& x = entries_[a];
    const Entry& y = entries_[b];
    const int c = x.category.compare(y.category);
    return c != 0 ? c < 0 : x.key < y.key;
  });
  // The bytes JsonWriter writes for the nested objects (compact layout: each key quoted with
  // git's escaping, each value's JSON text as it is), without its per-member bookkeeping.
  OutputCursor c(out);
  c.Put('{');
  const std::string* category = nullptr;
  for (uint32_t i : order_) {
    const Entry& entry = entries_[i];
    if (category == nullptr || *category != entry.category) {
      if (category != nullptr) c.PutLiteral("},");
      PutJsonString(entry.category, c);
      c.PutLiteral(":{");
      category = &entry.category;
    } else {
      c.Put(',');
    }
    PutJsonString(entry.key, c);
    c.Put(':');
    c.Put(entry.json);
  }
  if (category != nullptr) c.Put('}');
  c.Put('}');
}

}  // namespace tracewire::targets::otlp
