#include "format/file_header.h"

#include "absl/strings/str_format.h"
#include "format/constants.h"

namespace tracewire::format {
namespace {

uint32_t LoadLittleEndian32(const char* in) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= uint32_t{static_cast<uint8_t>(in[i])} << (8 * i);
  return value;
}

}  // namespace

absl::StatusOr<uint32_t> ParseFileHeader(absl::string_view input) {
  if (input.size() < kFileHeaderSize) {
    return absl::OutOfRangeError(absl::StrFormat(
        "byte offset 0: file header needs %d bytes, input has %d", kFileHeaderSize, input.size()));
  }
  if (input.substr(0, sizeof(kFileMagic)) !=
      absl::string_view(reinterpret_cast<const char*>(kFileMagic), sizeof(kFileMagic))) {
    return absl::DataLossError("byte offset 0: not a tracewire trace (bad magic)");
  }
  const uint32_t version = LoadLittleEndian32(input.data() + 8);
  if (version == 0 || version > kFormatVersion) {
    return absl::UnimplementedError(absl::StrFormat(
        "byte offset 8: format version %d is not supported (this build reads 1 to %d)", version,
        kFormatVersion));
  }
  const uint32_t flags = LoadLittleEndian32(input.data() + 12);
  if (version == 1 && flags != 0) {
    return absl::DataLossError("byte offset 12: reserved header bytes are not zero");
  }
  if ((flags & ~kKnownFileFlags) != 0) {
    return absl::DataLossError(absl::StrFormat("byte offset 12: unknown file header flags 0x%x",
                                               flags & ~kKnownFileFlags));
  }
  return version;
}

uint32_t FileHeaderFlags(absl::string_view header) {
  return header.size() < kFileHeaderSize ? 0 : LoadLittleEndian32(header.data() + 12);
}

}  // namespace tracewire::format
