#include "format/varint.h"

namespace tracewire::format {

void AppendUvarint(std::string* out, uint64_t value) {
  uint8_t buffer[kMaxVarintSize];
  const uint8_t* end = PutUvarint(buffer, value);
  out->append(reinterpret_cast<const char*>(buffer), end - buffer);
}

absl::string_view VarintResultName(VarintResult result) {
  switch (result) {
    case VarintResult::kOk:
      return "ok";
    case VarintResult::kTruncated:
      return "truncated varint";
    case VarintResult::kOverlong:
      return "overlong varint (more than 10 bytes)";
    case VarintResult::kOverflow:
      return "varint overflows 64 bits";
  }
  return "invalid varint";
}

}  // namespace tracewire::format
