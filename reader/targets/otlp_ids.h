// OTLP ids of a Trace2 process, computed from its sid exactly as git-ecosystem's
// trace2receiver does, so that the spans of every process of a tree join one trace
// whichever tool exported them:
//   trace id        = SHA-256(first sid component)[0..16)
//   process span id = SHA-256(last sid component)[16..24)
//   parent span id  = SHA-256(second-to-last component)[16..24), none for a root process.
#ifndef TRACEWIRE_READER_TARGETS_OTLP_IDS_H_
#define TRACEWIRE_READER_TARGETS_OTLP_IDS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tracewire::targets {

// The ids of one process.
struct OtlpProcessIds {
  std::array<uint8_t, 16> trace_id{};
  std::array<uint8_t, 8> span_id{};
  std::optional<std::array<uint8_t, 8>> parent_span_id;
};

// The ids of the process whose sid is `sid`.
OtlpProcessIds ProcessIdsFromSid(absl::string_view sid);

// The 32-byte SHA-256 digest of `data` (OpenSSL's libcrypto).
std::array<uint8_t, 32> Sha256(absl::string_view data);

// Lowercase hex of `bytes`, as OTLP/JSON writes trace and span ids.
std::string HexId(absl::Span<const uint8_t> bytes);

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_OTLP_IDS_H_
