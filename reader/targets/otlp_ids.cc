#include "reader/targets/otlp_ids.h"

#include <openssl/evp.h>

#include <algorithm>

#include "reader/sid_parts.h"

namespace tracewire::targets {

std::array<uint8_t, 32> Sha256(absl::string_view data) {
  std::array<uint8_t, 32> digest{};
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &size, EVP_sha256(), nullptr);
  return digest;
}

OtlpProcessIds ProcessIdsFromSid(absl::string_view sid) {
  OtlpProcessIds ids;
  const std::array<uint8_t, 32> root = Sha256(reader::SidFirstComponent(sid));
  std::copy(root.begin(), root.begin() + 16, ids.trace_id.begin());
  const std::array<uint8_t, 32> self = Sha256(reader::SidLastComponent(sid));
  std::copy(self.begin() + 16, self.begin() + 24, ids.span_id.begin());
  if (std::optional<absl::string_view> parent = reader::SidParentComponent(sid)) {
    const std::array<uint8_t, 32> digest = Sha256(*parent);
    std::array<uint8_t, 8> parent_id;
    std::copy(digest.begin() + 16, digest.begin() + 24, parent_id.begin());
    ids.parent_span_id = parent_id;
  }
  return ids;
}

std::string HexId(absl::Span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    hex.push_back(kDigits[b >> 4]);
    hex.push_back(kDigits[b & 15]);
  }
  return hex;
}

}  // namespace tracewire::targets
