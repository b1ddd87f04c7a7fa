// The 16-byte file header: magic, format version, reserved bytes.
#ifndef TRACEWIRE_FORMAT_FILE_HEADER_H_
#define TRACEWIRE_FORMAT_FILE_HEADER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tracewire::format {

// The header bytes for `version`.
std::string EncodeFileHeader(uint32_t version);

// Parses the first kFileHeaderSize bytes of `input` and returns the format version.
// Fails with OutOfRange if fewer bytes are given, DataLoss for a wrong magic or non-zero
// reserved bytes, and Unimplemented for a version this build cannot read.
absl::StatusOr<uint32_t> ParseFileHeader(absl::string_view input);

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_FILE_HEADER_H_
