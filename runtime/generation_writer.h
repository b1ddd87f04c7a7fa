// GenerationWriter: delivers a finished generation to the destination — the one seam
// between recording and output. Everything upstream only produces GenerationFrames; a
// consumer that keeps generations instead of writing them at once (a ring of recent
// generations dumped on demand) takes its place here.
#ifndef TRACEWIRE_RUNTIME_GENERATION_WRITER_H_
#define TRACEWIRE_RUNTIME_GENERATION_WRITER_H_

#include <sys/uio.h>
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/buffer_pool.h"
#include "runtime/flight_ring.h"
#include "runtime/generation_frames.h"
#include "runtime/target.h"

namespace tracewire::runtime {

// Called between the generation's buffers while a compression runs: true stops it (the
// generation is then written uncompressed). The callback may do other work meanwhile (cut
// the next generation ahead of the compression). Compression runs while the recording
// threads go on filling the next generation: a compression that held up the cuts would let
// that generation grow with its duration, and the next compression take longer still.
using GiveWayFn = bool (*)();

// When a generation is compressed (TRACEWIRE_COMPRESS). A generation left uncompressed is
// written or kept whole all the same: nothing is lost, it only takes more room.
struct CompressionPolicy {
  bool enabled = false;
  // A larger generation was cut late (the threads outpace the cuts) and is left
  // uncompressed.
  size_t max_bytes = SIZE_MAX;
  // Stops a compression in progress (nullptr: never).
  GiveWayFn give_way = nullptr;
};

class GenerationWriter {
 public:
  GenerationWriter() = default;
  ~GenerationWriter();
  GenerationWriter(const GenerationWriter&) = delete;
  GenerationWriter& operator=(const GenerationWriter&) = delete;

  // Writes `frames`, one complete generation, behind `file_header` (zstd-compressed into
  // one compressed_generation record as `compression` allows; one datagram per frame on a
  // datagram socket), then returns its buffers to `pool`.
  // Returns false if the destination failed (it has warned once and drops everything).
  // Not thread-safe: the caller serialises deliveries (advance_mu).
  bool Deliver(GenerationFrames* frames, const uint8_t* file_header, size_t file_header_size,
               const CompressionPolicy& compression, Destination& destination, BufferPool& pool);

  // Keeps `frames`, one complete generation, in `ring` instead of writing it (compressed
  // into one compressed_generation frame as `compression` allows), then returns its
  // buffers to `pool`. Not thread-safe: the caller serialises it with deliveries
  // (advance_mu).
  void Keep(GenerationFrames* frames, const CompressionPolicy& compression, FlightRing& ring,
            BufferPool& pool);

  // Whether the last Deliver or Keep wrote its generation as one compressed_generation.
  bool last_compressed() const { return last_compressed_; }

 private:
  // Compresses `frames` into compressed_ and encodes the record's head into record_ if
  // `compression` allows; false if not, or if zstd fails (the generation is then written
  // uncompressed).
  bool Compress(const GenerationFrames& frames, const CompressionPolicy& compression);
  bool WriteDatagrams(const GenerationFrames& frames, const uint8_t* file_header,
                      size_t file_header_size, Destination& destination);

  std::vector<iovec> pieces_;  // reused
  std::string compressed_;     // reused
  size_t compressed_size_ = 0;
  uint8_t record_[1 + 3 * 10] = {};
  size_t record_size_ = 0;
  ZSTD_CCtx* zstd_ = nullptr;
  bool last_compressed_ = false;
};

// Writes the whole frames in [begin, end) one datagram each. Async-signal-safe.
bool WriteFramesAsDatagrams(const uint8_t* begin, const uint8_t* end, Destination& destination);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_GENERATION_WRITER_H_
