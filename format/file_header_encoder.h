// Encoding the 16-byte file header (magic, format version, flags); file_header.h parses it.
#ifndef TRACEWIRE_FORMAT_FILE_HEADER_ENCODER_H_
#define TRACEWIRE_FORMAT_FILE_HEADER_ENCODER_H_

#include <cstdint>
#include <string>

namespace tracewire::format {

// The header bytes for `version` with `flags` (kFileFlag*).
std::string EncodeFileHeader(uint32_t version, uint32_t flags = 0);

}  // namespace tracewire::format

#endif  // TRACEWIRE_FORMAT_FILE_HEADER_ENCODER_H_
