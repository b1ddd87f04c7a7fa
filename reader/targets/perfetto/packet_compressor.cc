#include "reader/targets/perfetto/packet_compressor.h"

#include <libdeflate.h>

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

void PacketCompressor::FreeCompressor::operator()(libdeflate_compressor* c) const {
  libdeflate_free_compressor(c);
}

PacketCompressor::PacketCompressor() : compressor_(libdeflate_alloc_compressor(kLevel)) {}

PacketCompressor::~PacketCompressor() = default;

void PacketCompressor::MaybeFlush(std::string* out) {
  while (pending_.size() - start_ >= kChunkBytes) {
    // Walk the packets (tag, length, body) to the first boundary at or after kChunkBytes.
    const size_t end = start_ + kChunkBytes;
    size_t at = std::max(scanned_, start_);
    while (at < end) {
      uint64_t length = 0;
      size_t p = at + 1;
      int shift = 0;
      bool whole = false;  // the length's varint is all here
      while (p < pending_.size() && shift < 64) {
        const uint8_t byte = static_cast<uint8_t>(pending_[p++]);
        length |= uint64_t{byte & 0x7fu} << shift;
        shift += 7;
        if (byte < 0x80) {
          whole = true;
          break;
        }
      }
      if (!whole || length > pending_.size() - p) break;  // not all here
      at = p + length;
    }
    if (at < end) {
      scanned_ = at;
      break;  // the chunk's last packet is still to come
    }
    Compress(at - start_, out);
  }
  // The compressed chunks leave the buffer once per call, not once per chunk.
  if (start_ > 0) {
    pending_.erase(0, start_);
    scanned_ -= std::min(scanned_, start_);
    start_ = 0;
  }
}

void PacketCompressor::Flush(std::string* out) {
  if (pending_.size() > start_) Compress(pending_.size() - start_, out);
  pending_.clear();
  start_ = 0;
  scanned_ = 0;
}

void PacketCompressor::Compress(size_t bytes, std::string* out) {
  const char* packets = pending_.data() + start_;
  size_t size = 0;
  if (compressor_ != nullptr) {
    compressed_.resize(libdeflate_zlib_compress_bound(compressor_.get(), bytes));
    size = libdeflate_zlib_compress(compressor_.get(), packets, bytes, compressed_.data(),
                                    compressed_.size());
  }
  if (size == 0) {  // (only when the compressor could not be allocated) the packets as they are
    out->append(packets, bytes);
  } else {
    const size_t body = VarintSize(kCompressedPacketsTag) + VarintSize(size) + size;
    out->push_back(kTracePacketTag);
    AppendVarint(body, out);
    AppendVarint(kCompressedPacketsTag, out);
    AppendVarint(size, out);
    out->append(compressed_.data(), size);
  }
  start_ += bytes;
  scanned_ = start_;
}

}  // namespace tracewire::targets
