// The 16-byte file header: magic, format version, flags.
#ifndef TRACEWIRE_FORMAT_FILE_HEADER_H_
#define TRACEWIRE_FORMAT_FILE_HEADER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/file_header_encoder.h"  // EncodeFileHeader

namespace tracewire::format {

// Parses the first kFileHeaderSize bytes of `input` and returns the format version.
// Fails with OutOfRange if fewer bytes are given, DataLoss for a wrong magic, for non-zero
// bytes 12-15 in version 1 or unknown flags in version 2, and Unimplemented for a version
// this build cannot read.
absl::StatusOr<uint32_t> ParseFileHeader(absl::string_view input);

// The flags of a header ParseFileHeader accepted (0 for version 1).
uint32_t FileHeaderFlags(absl::string_view header);

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_FILE_HEADER_H_
