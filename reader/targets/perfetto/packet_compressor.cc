#include "reader/targets/perfetto/packet_compressor.h"

#include <zlib.h>

#include <cstdint>
#include <string>

#include "reader/targets/perfetto/track_event_encoder.h"

namespace tracewire::targets {
namespace {

// Trace.packet (field 1, length-delimited) and TracePacket.compressed_packets (field 50,
// length-delimited) tags.
constexpr char kTracePacketTag = (1 << 3) | 2;
constexpr uint64_t kCompressedPacketsTag = (50 << 3) | 2;

size_t VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

}  // namespace

void PacketCompressor::Flush(std::string* out) {
  if (pending_.empty()) return;
  uLongf size = compressBound(static_cast<uLong>(pending_.size()));
  compressed_.resize(size);
  // Level 1: most of the ratio of the default level at several times its speed (the
  // packets are short and repetitive).
  const int status = compress2(reinterpret_cast<Bytef*>(compressed_.data()), &size,
                               reinterpret_cast<const Bytef*>(pending_.data()), pending_.size(), 1);
  if (status != Z_OK) {  // (only on memory exhaustion) the packets as they are
    out->append(pending_);
    pending_.clear();
    return;
  }
  const size_t body = VarintSize(kCompressedPacketsTag) + VarintSize(size) + size;
  out->push_back(kTracePacketTag);
  AppendVarint(body, out);
  AppendVarint(kCompressedPacketsTag, out);
  AppendVarint(size, out);
  out->append(compressed_.data(), size);
  pending_.clear();
}

}  // namespace tracewire::targets
