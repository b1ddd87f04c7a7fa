// MemoryBudget (tools/collector): the bytes all peers hold together, against one limit.
#include "tools/collector/memory_budget.h"

#include <cstddef>

#include "gtest/gtest.h"

namespace tracewire::testing {
namespace {

using tools::MemoryBudget;

TEST(MemoryBudgetTest, SumsThePeersSharesAgainstTheLimit) {
  MemoryBudget budget(100);
  size_t first = 0;
  size_t second = 0;
  EXPECT_TRUE(budget.Update(first, 60));
  EXPECT_TRUE(budget.Update(second, 40));  // exactly the limit
  EXPECT_EQ(budget.total(), 100u);
  EXPECT_FALSE(budget.Update(second, 41));
  // The share is recorded even over the limit, so that releasing it balances.
  EXPECT_EQ(second, 41u);
  EXPECT_EQ(budget.total(), 101u);
  EXPECT_TRUE(budget.Update(first, 0));
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(budget.total(), 41u);
  EXPECT_TRUE(budget.Update(second, 10));  // a share shrinks
  EXPECT_EQ(budget.total(), 10u);
  EXPECT_TRUE(budget.Update(second, 0));
  EXPECT_EQ(budget.total(), 0u);
}

}  // namespace
}  // namespace tracewire::testing
