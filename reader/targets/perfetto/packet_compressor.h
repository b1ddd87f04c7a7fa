// PacketCompressor: gathers serialized Trace.packet fields and writes them as Perfetto's
// service does, in packets of `compressed_packets` (the gathered bytes, themselves a
// serialized `Trace`, compressed with zlib). Perfetto's trace processor and UI read such a
// packet as the packets it holds, in order.
#ifndef TRACEWIRE_READER_TARGETS_PERFETTO_PACKET_COMPRESSOR_H_
#define TRACEWIRE_READER_TARGETS_PERFETTO_PACKET_COMPRESSOR_H_

#include <cstddef>
#include <string>

namespace tracewire::targets {

class PacketCompressor {
 public:
  // Packets gathered before they are compressed into one: large enough for zlib's window
  // to find the repeated packet headers, small enough to stay in the cache.
  static constexpr size_t kChunkBytes = 512 * 1024;

  // The buffer packets are appended to (whole Trace.packet fields).
  std::string* pending() { return &pending_; }
  // Compresses the pending packets into *out if they fill a chunk.
  void MaybeFlush(std::string* out) {
    if (pending_.size() >= kChunkBytes) Flush(out);
  }
  // Compresses the pending packets (if any) into one compressed_packets packet on *out.
  void Flush(std::string* out);
  // Drops the pending packets.
  void Clear() { pending_.clear(); }

 private:
  std::string pending_;
  std::string compressed_;
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_PERFETTO_PACKET_COMPRESSOR_H_
