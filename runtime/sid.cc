#include "runtime/sid.h"

// OpenSSL's low-level SHA-1 (deprecated in OpenSSL 3 in favour of EVP, still provided):
// it links only the SHA-1 code from libcrypto.a. EVP_Digest would link OpenSSL's provider
// machinery (3.4 MB, 17,000 relocations at every process start) and read openssl.cnf at
// the first digest, delaying the first event of a traced program by milliseconds.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <algorithm>

#include "runtime/text.h"

namespace tracewire::runtime {

std::string Sha1Hex(absl::string_view data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA_CTX context;
  SHA1_Init(&context);
  SHA1_Update(&context, data.data(), data.size());
  SHA1_Final(digest, &context);
  std::string hex;
  for (unsigned char byte : digest) AppendHexByte(&hex, byte);
  return hex;
}

std::string OwnSidComponent(const timespec& now, absl::string_view hostname, unsigned pid) {
  // "yyyymmddThhmmss.uuuuuuZ": git's form has no separator other than the dot.
  tm utc;
  const time_t seconds = now.tv_sec;
  gmtime_r(&seconds, &utc);
  std::string sid;
  sid.reserve(48);
  AppendDec(&sid, static_cast<uint64_t>(utc.tm_year + 1900), 4);
  AppendDec(&sid, static_cast<uint64_t>(utc.tm_mon + 1), 2);
  AppendDec(&sid, static_cast<uint64_t>(utc.tm_mday), 2);
  sid.push_back('T');
  AppendDec(&sid, static_cast<uint64_t>(utc.tm_hour), 2);
  AppendDec(&sid, static_cast<uint64_t>(utc.tm_min), 2);
  AppendDec(&sid, static_cast<uint64_t>(utc.tm_sec), 2);
  sid.push_back('.');
  AppendDec(&sid, static_cast<uint64_t>(now.tv_nsec / 1000), 6);
  sid += "Z-";
  if (hostname.empty()) {
    sid += "Localhost";
  } else {
    sid.push_back('H');
    sid += Sha1Hex(hostname).substr(0, 8);
  }
  sid += "-P";
  AppendHex(&sid, pid, 8);
  return sid;
}

std::string FullSid(absl::string_view parent_sid, absl::string_view own) {
  if (parent_sid.empty()) return std::string(own);
  return Cat({parent_sid, "/", own});
}

int SidDepth(absl::string_view full_sid) {
  return static_cast<int>(std::count(full_sid.begin(), full_sid.end(), '/'));
}

}  // namespace tracewire::runtime
