#include "runtime/sid.h"

// OpenSSL's low-level SHA-1 (deprecated in OpenSSL 3 in favour of EVP, still provided):
// it links only the SHA-1 code from libcrypto.a. EVP_Digest would link OpenSSL's provider
// machinery (3.4 MB, 17,000 relocations at every process start) and read openssl.cnf at
// the first digest, delaying the first event of a traced program by milliseconds.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::runtime {

std::string Sha1Hex(absl::string_view data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA_CTX context;
  SHA1_Init(&context);
  SHA1_Update(&context, data.data(), data.size());
  SHA1_Final(digest, &context);
  std::string hex;
  for (unsigned char byte : digest) absl::StrAppendFormat(&hex, "%02x", byte);
  return hex;
}

std::string OwnSidComponent(absl::Time now, absl::string_view hostname, unsigned pid) {
  const std::string time = absl::FormatTime("%Y%m%dT%H%M%E6SZ", now, absl::UTCTimeZone());
  // %E6S gives "SS.uuuuuu"; git's form has no separator other than that dot.
  const std::string host =
      hostname.empty() ? "Localhost" : absl::StrCat("H", Sha1Hex(hostname).substr(0, 8));
  return absl::StrFormat("%s-%s-P%08x", time, host, pid);
}

std::string FullSid(absl::string_view parent_sid, absl::string_view own) {
  if (parent_sid.empty()) return std::string(own);
  return absl::StrCat(parent_sid, "/", own);
}

int SidDepth(absl::string_view full_sid) {
  return static_cast<int>(std::count(full_sid.begin(), full_sid.end(), '/'));
}

}  // namespace tracewire::runtime
