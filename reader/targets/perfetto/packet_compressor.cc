#include "reader/targets/perfetto/packet_compressor.h"

#include <zlib.h>

#include <algorithm>
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

void PacketCompressor::MaybeFlush(std::string* out) {
  while (pending_.size() >= kChunkBytes) {
    // Walk the packets (tag, length, body) to the first boundary at or after kChunkBytes.
    size_t at = scanned_;
    while (at < kChunkBytes) {
      uint64_t length = 0;
      size_t p = at + 1;
      int shift = 0;
      while (p < pending_.size() && shift < 64) {
        const uint8_t byte = static_cast<uint8_t>(pending_[p++]);
        length |= uint64_t{byte & 0x7fu} << shift;
        shift += 7;
        if (byte < 0x80) break;
      }
      if (length > pending_.size() - std::min(p, pending_.size())) break;  // not all here
      at = p + length;
    }
    if (at < kChunkBytes) {
      scanned_ = at;
      return;  // the chunk's last packet is still to come
    }
    Compress(at, out);
  }
}

void PacketCompressor::Flush(std::string* out) {
  if (!pending_.empty()) Compress(pending_.size(), out);
}

void PacketCompressor::Compress(size_t bytes, std::string* out) {
  uLongf size = compressBound(static_cast<uLong>(bytes));
  compressed_.resize(size);
  // Level 1: most of the ratio of the default level at several times its speed (the
  // packets are short and repetitive).
  const int status = compress2(reinterpret_cast<Bytef*>(compressed_.data()), &size,
                               reinterpret_cast<const Bytef*>(pending_.data()), bytes, 1);
  if (status != Z_OK) {  // (only on memory exhaustion) the packets as they are
    out->append(pending_, 0, bytes);
  } else {
    const size_t body = VarintSize(kCompressedPacketsTag) + VarintSize(size) + size;
    out->push_back(kTracePacketTag);
    AppendVarint(body, out);
    AppendVarint(kCompressedPacketsTag, out);
    AppendVarint(size, out);
    out->append(compressed_.data(), size);
  }
  pending_.erase(0, bytes);
  scanned_ = 0;
}

}  // namespace tracewire::targets
