#include "runtime/sid.h"

#include <openssl/evp.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tracewire::runtime {

std::string Sha1Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha1(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) absl::StrAppendFormat(&hex, "%02x", digest[i]);
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
