#include "format/file_header_encoder.h"

#include "format/constants.h"

namespace tracewire::format {
namespace {

void StoreLittleEndian32(char* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(value >> (8 * i));
}

}  // namespace

std::string EncodeFileHeader(uint32_t version, uint32_t flags) {
  std::string header(reinterpret_cast<const char*>(kFileMagic), sizeof(kFileMagic));
  char version_bytes[4];
  StoreLittleEndian32(version_bytes, version);
  header.append(version_bytes, 4);
  char flag_bytes[4];
  StoreLittleEndian32(flag_bytes, flags);
  header.append(flag_bytes, 4);
  return header;
}

}  // namespace tracewire::format
