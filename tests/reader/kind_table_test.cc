// KindTable: one entry per EventKind, buildable at compile time.
#include "reader/kind_table.h"

#include "gtest/gtest.h"
#include "reader/event.h"

namespace tracewire::reader {
namespace {

constexpr KindTable<int> MakeNumbers() {
  KindTable<int> table;
  table[EventKind::kVersion] = 1;
  table[EventKind::kCounter] = 2;
  table[EventKind::kExperimental] = 3;
  return table;
}

constexpr KindTable<int> kNumbers = MakeNumbers();

static_assert(kNumbers[EventKind::kVersion] == 1);
static_assert(kNumbers[EventKind::kCounter] == 2);
static_assert(kNumbers[EventKind::kExperimental] == 3);
static_assert(kNumbers[EventKind::kData] == 0, "unassigned entries are value-initialized");
static_assert(KindTable<int>::size() == kNumEventKinds);

TEST(KindTableTest, OneEntryPerKindAndUnassignedOnesAreValueInitialized) {
  KindTable<const char*> names;
  EXPECT_EQ(names.size(), static_cast<size_t>(EventKind::kExperimental) + 1);
  for (size_t k = 0; k < names.size(); ++k) EXPECT_EQ(names[EventKind(k)], nullptr);
  names[EventKind::kRegionEnter] = "enter";
  EXPECT_STREQ(names[EventKind::kRegionEnter], "enter");
  EXPECT_EQ(names[EventKind::kRegionLeave], nullptr);
}

TEST(KindTableTest, EntriesAreDistinct) {
  KindTable<int> table;
  for (size_t k = 0; k < table.size(); ++k) table[EventKind(k)] = static_cast<int>(k) * 10;
  for (size_t k = 0; k < table.size(); ++k)
    EXPECT_EQ(table[EventKind(k)], static_cast<int>(k) * 10);
}

}  // namespace
}  // namespace tracewire::reader
