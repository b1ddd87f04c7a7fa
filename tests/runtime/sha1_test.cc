// runtime/sha1 against the FIPS 180-4 example digests and against OpenSSL's SHA-1 on every
// length around the padding boundaries and on random data.
#include "runtime/sha1.h"

#include <openssl/evp.h>

#include <random>
#include <string>

#include "gtest/gtest.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

std::string Hex(const std::array<uint8_t, 20>& digest) {
  std::string hex;
  for (uint8_t byte : digest) AppendHexByte(&hex, byte);
  return hex;
}

std::string OpensslSha1Hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EXPECT_EQ(EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha1(), nullptr), 1);
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) AppendHexByte(&hex, digest[i]);
  return hex;
}

TEST(Sha1Test, FipsExamples) {
  EXPECT_EQ(Hex(Sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Hex(Sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Hex(Sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Hex(Sha1(std::string(1'000'000, 'a'))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(Sha1Test, MatchesOpensslAtEveryLengthAcrossThreeBlocks) {
  std::mt19937 random(20261123);
  for (size_t length = 0; length <= 3 * 64 + 1; ++length) {
    std::string data(length, '\0');
    for (char& c : data) c = static_cast<char>(random());
    EXPECT_EQ(Hex(Sha1(data)), OpensslSha1Hex(data)) << "length " << length;
  }
}

TEST(Sha1Test, MatchesOpensslOnLongRandomInputs) {
  std::mt19937 random(7);
  for (int round = 0; round < 50; ++round) {
    std::string data(random() % 100'000, '\0');
    for (char& c : data) c = static_cast<char>(random());
    EXPECT_EQ(Hex(Sha1(data)), OpensslSha1Hex(data)) << "length " << data.size();
  }
}

}  // namespace
}  // namespace tracewire::runtime
