// KindTable<T>: one T per EventKind (the Trace2 kinds and kExperimental), indexed by the
// kind. constexpr-buildable, so a formatter's per-kind rules can be a compile-time table:
//   constexpr KindTable<Rule> kRules = [] {
//     KindTable<Rule> rules;
//     rules[EventKind::kExit] = {...};
//     return rules;
//   }();
// Kinds never assigned hold a value-initialized T.
#ifndef TRACEWIRE_READER_KIND_TABLE_H_
#define TRACEWIRE_READER_KIND_TABLE_H_

#include <array>
#include <cstddef>

#include "reader/event.h"

namespace tracewire::reader {

template <typename T>
class KindTable {
 public:
  // Every entry value-initialized.
  constexpr KindTable() = default;

  // The entry of `kind`.
  constexpr T& operator[](EventKind kind) { return entries_[static_cast<size_t>(kind)]; }
  constexpr const T& operator[](EventKind kind) const {
    return entries_[static_cast<size_t>(kind)];
  }

  // Number of entries: every EventKind, kExperimental included.
  static constexpr size_t size() { return kNumEventKinds; }

 private:
  std::array<T, kNumEventKinds> entries_{};
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_KIND_TABLE_H_
