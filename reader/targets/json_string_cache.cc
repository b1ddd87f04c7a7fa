#include "reader/targets/json_string_cache.h"

#include "reader/targets/json_writer.h"

namespace tracewire::targets {

absl::string_view JsonStringCache::Miss(Entry& entry, absl::string_view value) {
  ++misses_;
  const absl::string_view text = transform_ == nullptr ? value : transform_(value, &transformed_);
  if (value.size() > kMaxCachedSize) {
    uncached_.clear();
    AppendJsonString(text, &uncached_);
    return uncached_;
  }
  entry.data = value.data();
  entry.size = value.size();
  entry.original.assign(value.data(), value.size());
  entry.quoted.clear();
  AppendJsonString(text, &entry.quoted);
  return entry.quoted;
}

}  // namespace tracewire::targets
