// IdTable: a table keyed by the IDs of one generation's string, site or stack records.
// Dense ID ranges (the normal case: 1..N) are stored in a vector for O(1) lookups; sparse
// ranges fall back to a hash map so that a huge ID in hostile input cannot blow up memory.
#ifndef TRACEWIRE_READER_ID_TABLE_H_
#define TRACEWIRE_READER_ID_TABLE_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/container/flat_hash_map.h"

namespace tracewire::reader {

template <typename T>
class IdTable {
 public:
  // Removes every entry; keeps the capacity for the next generation.
  void Clear() {
    staged_.clear();
    dense_.clear();
    present_.clear();
    sparse_.clear();
    is_dense_ = true;
    complete_limit_ = 1;
  }

  // Stages an entry recorded at byte `offset`; Build() makes staged entries visible.
  void Stage(uint64_t id, T value, uint64_t offset) {
    staged_.push_back(Staged{id, offset, std::move(value)});
  }

  // A duplicated ID and the byte offset of its second record; id 0 means none.
  struct Duplicate {
    uint64_t id = 0;
    uint64_t offset = 0;
  };

  // Moves staged entries into the lookup structure; reports the first duplicated ID.
  Duplicate Build() {
    uint64_t max_id = 0;
    for (const Staged& entry : staged_) max_id = std::max(max_id, entry.id);
    is_dense_ = max_id <= 4 * staged_.size() + 1024;
    complete_limit_ = 1;
    Duplicate duplicate;
    if (is_dense_) {
      dense_.resize(max_id + 1);
      present_.assign(max_id + 1, 0);
      for (Staged& entry : staged_) {
        if (present_[entry.id]) {
          if (duplicate.id == 0) duplicate = {entry.id, entry.offset};
          continue;
        }
        present_[entry.id] = 1;
        dense_[entry.id] = std::move(entry.value);
      }
    } else {
      for (Staged& entry : staged_) {
        if (!sparse_.try_emplace(entry.id, std::move(entry.value)).second && duplicate.id == 0) {
          duplicate = {entry.id, entry.offset};
        }
      }
    }
    if (is_dense_ && duplicate.id == 0 && max_id == staged_.size()) {
      complete_limit_ = max_id + 1;  // every ID 1..max_id is present
    }
    staged_.clear();
    return duplicate;
  }

  // IDs below this value (and above 0) are all present: a table with IDs 1..N gives N + 1,
  // so that the hot path checks an ID with one comparison. 1 if the table is not so.
  uint64_t complete_limit() const { return complete_limit_; }

  // The entry for `id` when 0 < id < complete_limit() (unchecked).
  const T& Get(uint64_t id) const { return dense_[id]; }

  // The entry for `id`, or nullptr.
  // Calls `update(value)` on every value of the built table (any order).
  template <typename Update>
  void UpdateEach(Update update) {
    for (size_t id = 0; id < dense_.size(); ++id) {
      if (present_[id]) update(dense_[id]);
    }
    for (auto& [id, value] : sparse_) update(value);
  }

  ABSL_ATTRIBUTE_ALWAYS_INLINE const T* Find(uint64_t id) const {
    if (ABSL_PREDICT_TRUE(is_dense_)) {
      return id < present_.size() && present_[id] ? &dense_[id] : nullptr;
    }
    auto it = sparse_.find(id);
    return it == sparse_.end() ? nullptr : &it->second;
  }

 private:
  struct Staged {
    uint64_t id;
    uint64_t offset;
    T value;
  };
  std::vector<Staged> staged_;
  bool is_dense_ = true;
  uint64_t complete_limit_ = 1;
  std::vector<T> dense_;
  std::vector<uint8_t> present_;
  absl::flat_hash_map<uint64_t, T> sparse_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_ID_TABLE_H_
