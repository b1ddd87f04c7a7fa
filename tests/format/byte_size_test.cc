#include "format/byte_size.h"

#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

TEST(ByteSizeTest, NumbersAndSuffixes) {
  EXPECT_EQ(ParseByteSize("0", 100), 0u);
  EXPECT_EQ(ParseByteSize("4096", 1 << 20), 4096u);
  EXPECT_EQ(ParseByteSize("4k", 1 << 20), 4096u);
  EXPECT_EQ(ParseByteSize(" 4M ", uint64_t{1} << 40), uint64_t{4} << 20);
  EXPECT_EQ(ParseByteSize("2g", uint64_t{1} << 40), uint64_t{2} << 30);
}

TEST(ByteSizeTest, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "M", "4MB", "-4", "4.5M", "0x10", "12T"}) {
    EXPECT_FALSE(ParseByteSize(bad, uint64_t{1} << 40).has_value()) << bad;
  }
}

TEST(ByteSizeTest, LimitIsInclusiveAndOverflowIsRejected) {
  EXPECT_EQ(ParseByteSize("1K", 1024), 1024u);
  EXPECT_FALSE(ParseByteSize("1025", 1024).has_value());
  EXPECT_FALSE(ParseByteSize("18446744073709551615G", UINT64_MAX).has_value());
  EXPECT_FALSE(ParseByteSize("99999999999999999999999", UINT64_MAX).has_value());
}

}  // namespace
}  // namespace tracewire::format
