#include "format/file_header.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "format/constants.h"
#include "gtest/gtest.h"

namespace tracewire::format {
namespace {

TEST(FileHeaderTest, EncodesExactBytes) {
  const std::string header = EncodeFileHeader(kFormatVersion);
  ASSERT_EQ(header.size(), kFileHeaderSize);
  EXPECT_EQ(header, std::string("\x89TWR\r\n\x1a\n\x04\x00\x00\x00\x00\x00\x00\x00", 16));
  EXPECT_EQ(kFormatVersion, 4u);
  EXPECT_EQ(EncodeFileHeader(0x04030201).substr(8, 4), "\x01\x02\x03\x04");
}

TEST(FileHeaderTest, VersionOneIsStillRead) {
  absl::StatusOr<uint32_t> version = ParseFileHeader(EncodeFileHeader(1));
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 1u);
}

TEST(FileHeaderTest, VersionTwoIsStillRead) {
  absl::StatusOr<uint32_t> version = ParseFileHeader(EncodeFileHeader(2));
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, 2u);
}

TEST(FileHeaderTest, RoundTrip) {
  const std::string header = EncodeFileHeader(kFormatVersion);
  absl::StatusOr<uint32_t> version = ParseFileHeader(header);
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, kFormatVersion);
  // Bytes after the header (the first frame) are not looked at.
  version = ParseFileHeader(header + "\x07\x01");
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_EQ(*version, kFormatVersion);
}

TEST(FileHeaderTest, BadMagic) {
  for (int i = 0; i < 8; ++i) {
    std::string header = EncodeFileHeader(kFormatVersion);
    header[i] ^= 0x20;
    const absl::Status status = ParseFileHeader(header).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << i;
    EXPECT_TRUE(absl::StrContains(status.message(), "byte offset 0: not a tracewire trace"))
        << status;
  }
}

TEST(FileHeaderTest, Version1NonZeroReservedBytes) {
  for (int i = 12; i < 16; ++i) {
    std::string header = EncodeFileHeader(1);
    header[i] = 1;
    const absl::Status status = ParseFileHeader(header).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << i;
    EXPECT_TRUE(absl::StrContains(status.message(), "byte offset 12: reserved header bytes"))
        << status;
  }
  EXPECT_TRUE(ParseFileHeader(EncodeFileHeader(1)).ok());
}

TEST(FileHeaderTest, Flags) {
  EXPECT_EQ(EncodeFileHeader(kFormatVersion, kFileFlagFlightRecorderDump).substr(12),
            std::string("\x01\0\0\0", 4));
  const std::string dump = EncodeFileHeader(kFormatVersion, kFileFlagFlightRecorderDump);
  ASSERT_TRUE(ParseFileHeader(dump).ok());
  EXPECT_EQ(FileHeaderFlags(dump), kFileFlagFlightRecorderDump);
  EXPECT_EQ(FileHeaderFlags(EncodeFileHeader(kFormatVersion)), 0u);
}

TEST(FileHeaderTest, UnknownFlags) {
  for (int i = 12; i < 16; ++i) {
    std::string header = EncodeFileHeader(kFormatVersion);
    header[i] = 2;
    const absl::Status status = ParseFileHeader(header).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << i;
    EXPECT_TRUE(absl::StrContains(status.message(), "byte offset 12: unknown file header flags"))
        << status;
  }
}

TEST(FileHeaderTest, UnsupportedVersions) {
  for (uint32_t version : {0u, kFormatVersion + 1, 0xffffffffu}) {
    const absl::Status status = ParseFileHeader(EncodeFileHeader(version)).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << version;
    EXPECT_TRUE(absl::StrContains(status.message(), absl::StrCat("byte offset 8: format version ",
                                                                 version, " is not supported")))
        << status;
  }
}

TEST(FileHeaderTest, ShortInput) {
  const std::string header = EncodeFileHeader(kFormatVersion);
  for (size_t size = 0; size < kFileHeaderSize; ++size) {
    const absl::Status status = ParseFileHeader(header.substr(0, size)).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kOutOfRange) << size;
    EXPECT_TRUE(
        absl::StrContains(status.message(), absl::StrCat("needs 16 bytes, input has ", size)))
        << status;
  }
}

}  // namespace
}  // namespace tracewire::format
