// PacketCompressor: gathers serialized Trace.packet fields and writes them as Perfetto's
// service does, in packets of `compressed_packets` (the gathered bytes, themselves a
// serialized `Trace`, compressed in zlib's format). Perfetto's trace processor and UI read
// such a packet as the packets it holds, in order. Packets that do not parse as
// Trace.packet fields are compressed as they are.
//
// The compressor is libdeflate's (whole-buffer, several times the speed of zlib's deflate
// at the same level and a smaller output); its zlib stream is what Perfetto inflates.
#ifndef TRACEWIRE_READER_TARGETS_PERFETTO_PACKET_COMPRESSOR_H_
#define TRACEWIRE_READER_TARGETS_PERFETTO_PACKET_COMPRESSOR_H_

#include <cstddef>
#include <memory>
#include <string>

struct libdeflate_compressor;

namespace tracewire::targets {

class PacketCompressor {
 public:
  // A chunk ends at the first packet boundary at or after this many bytes: large enough
  // for the compressor's window to find the repeated packet headers, small enough to stay
  // in the cache. Chunks depend only on the packets, not on how they were handed over, so
  // the output is the same whatever the pieces the packets came in.
  static constexpr size_t kChunkBytes = 512 * 1024;
  // libdeflate's compression level (1 to 12).
  static constexpr int kLevel = 1;

  PacketCompressor();
  ~PacketCompressor();
  PacketCompressor(const PacketCompressor&) = delete;
  PacketCompressor& operator=(const PacketCompressor&) = delete;

  // The buffer packets are appended to (whole Trace.packet fields only).
  std::string* pending() { return &pending_; }
  // Compresses every full chunk of the pending packets into *out.
  void MaybeFlush(std::string* out);
  // Compresses all the pending packets (if any) into *out: the last, shorter chunk.
  void Flush(std::string* out);

 private:
  struct FreeCompressor {
    void operator()(libdeflate_compressor* c) const;
  };

  // Compresses the `size` pending bytes from start_ into one compressed_packets packet on
  // *out and moves start_ past them.
  void Compress(size_t size, std::string* out);

  std::unique_ptr<libdeflate_compressor, FreeCompressor> compressor_;
  std::string pending_;
  size_t start_ = 0;    // pending_ before this is compressed already
  size_t scanned_ = 0;  // the packet boundary the scan of pending_ has reached
  std::string compressed_;
};

}  // namespace tracewire::targets

#endif  // TRACEWIRE_READER_TARGETS_PERFETTO_PACKET_COMPRESSOR_H_
