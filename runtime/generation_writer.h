// GenerationWriter: delivers a finished generation to the destination — the one seam
// between recording and output. Everything upstream only produces GenerationFrames; a
// consumer that keeps generations instead of writing them at once (a ring of recent
// generations dumped on demand) takes its place here.
#ifndef TRACEWIRE_RUNTIME_GENERATION_WRITER_H_
#define TRACEWIRE_RUNTIME_GENERATION_WRITER_H_

#include <sys/uio.h>
#include <zstd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/buffer_pool.h"
#include "runtime/flight_ring.h"
#include "runtime/generation_frames.h"
#include "runtime/target.h"

namespace tracewire::runtime {

class GenerationWriter {
 public:
  GenerationWriter() = default;
  ~GenerationWriter();
  GenerationWriter(const GenerationWriter&) = delete;
  GenerationWriter& operator=(const GenerationWriter&) = delete;

  // Writes `frames`, one complete generation, behind `file_header` (zstd-compressed into
  // one compressed_generation record with `compress`; one datagram per frame on a datagram
  // socket), then returns its buffers to `pool`.
  // Returns false if the destination failed (it has warned once and drops everything).
  // Not thread-safe: the caller serialises deliveries (advance_mu).
  bool Deliver(GenerationFrames* frames, const uint8_t* file_header, size_t file_header_size,
               bool compress, Destination& destination, BufferPool& pool);

  // Keeps `frames`, one complete generation, in `ring` instead of writing it (compressed
  // into one compressed_generation frame with `compress`), then returns its buffers to
  // `pool`. Not thread-safe: the caller serialises it with deliveries (advance_mu).
  void Keep(GenerationFrames* frames, bool compress, FlightRing& ring, BufferPool& pool);

 private:
  // Compresses `frames` into compressed_ and encodes the record's head into record_;
  // false if zstd fails (the generation is then written uncompressed).
  bool Compress(const GenerationFrames& frames);
  bool WriteDatagrams(const GenerationFrames& frames, const uint8_t* file_header,
                      size_t file_header_size, Destination& destination);

  std::vector<iovec> pieces_;  // reused
  std::string compressed_;     // reused
  size_t compressed_size_ = 0;
  uint8_t record_[1 + 3 * 10] = {};
  size_t record_size_ = 0;
  ZSTD_CCtx* zstd_ = nullptr;
};

// Writes the whole frames in [begin, end) one datagram each. Async-signal-safe.
bool WriteFramesAsDatagrams(const uint8_t* begin, const uint8_t* end, Destination& destination);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_GENERATION_WRITER_H_
