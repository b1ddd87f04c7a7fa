#include "runtime/generation_writer.h"

#include <algorithm>

#include "format/constants.h"
#include "format/event_spec.h"
#include "format/varint.h"

namespace tracewire::runtime {
namespace {

// The size of the frame starting at `begin` (its type's args, then its data or body).
size_t FrameSize(const uint8_t* begin, const uint8_t* end) {
  const uint8_t* p = begin + 1;
  const format::EventSpec* spec = format::LookupSpec(*begin);
  uint64_t value = 0;
  uint64_t length = 0;
  for (const format::ArgSpec& arg : spec->Args()) {
    format::GetUvarint(&p, end, &value);
    if (arg.type == format::ArgType::kLength) length = value;
  }
  if (spec->has_data) {
    format::GetUvarint(&p, end, &value);
    length = value;
  }
  return (p - begin) + length;
}

}  // namespace

GenerationWriter::~GenerationWriter() { ZSTD_freeCCtx(zstd_); }

bool GenerationWriter::Deliver(GenerationFrames* frames, const uint8_t* file_header,
                               size_t file_header_size, const CompressionPolicy& compression,
                               Destination& destination, BufferPool& pool) {
  bool ok = destination.ok();
  last_compressed_ = false;
  if (ok) {
    destination.BeginGeneration();
    // A directory target's file was created holding the file header: its first generation
    // follows it directly.
    if (destination.TakeHeaderInPlace()) file_header_size = 0;
    if (destination.is_datagram()) {
      ok = WriteDatagrams(*frames, file_header, file_header_size, destination);
    } else if (Compress(*frames, compression)) {
      last_compressed_ = true;
      const iovec pieces[] = {{const_cast<uint8_t*>(file_header), file_header_size},
                              {record_, record_size_},
                              {compressed_.data(), compressed_size_}};
      ok = destination.WriteV(pieces, 3);
    } else {
      pieces_.clear();
      pieces_.push_back({const_cast<uint8_t*>(file_header), file_header_size});
      for (Buffer* b = frames->buffers.head; b != nullptr; b = b->next) {
        pieces_.push_back({b->data + b->begin, b->size()});
      }
      ok = destination.WriteV(pieces_.data(), static_cast<int>(pieces_.size()));
    }
  }
  frames->Release(pool);
  return ok;
}

void GenerationWriter::Keep(GenerationFrames* frames, const CompressionPolicy& compression,
                            FlightRing& ring, BufferPool& pool) {
  last_compressed_ = Compress(*frames, compression);
  if (last_compressed_) {
    const iovec pieces[] = {{record_, record_size_}, {compressed_.data(), compressed_size_}};
    ring.Store(frames->gen, pieces, 2);
  } else {
    pieces_.clear();
    for (Buffer* b = frames->buffers.head; b != nullptr; b = b->next) {
      pieces_.push_back({b->data + b->begin, b->size()});
    }
    ring.Store(frames->gen, pieces_.data(), static_cast<int>(pieces_.size()));
  }
  frames->Release(pool);
}

bool GenerationWriter::Compress(const GenerationFrames& frames,
                                const CompressionPolicy& compression) {
  if (!compression.enabled) return false;
  // A reader rejects a compressed_generation whose content exceeds kMaxGenerationSize.
  if (frames.bytes() > std::min(compression.max_bytes, format::kMaxGenerationSize)) return false;
  if (zstd_ == nullptr) {
    zstd_ = ZSTD_createCCtx();
    if (zstd_ == nullptr) return false;
  }
  ZSTD_CCtx_reset(zstd_, ZSTD_reset_session_only);
  ZSTD_CCtx_setParameter(zstd_, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setPledgedSrcSize(zstd_, frames.bytes());
  // The output grows with what zstd produces (not to the bound of the whole generation up
  // front: a compression that gives way early costs little), and keeps its size for the
  // next generation.
  ZSTD_outBuffer out = {compressed_.data(), compressed_.size(), 0};
  for (Buffer* b = frames.buffers.head; b != nullptr; b = b->next) {
    if (compression.give_way != nullptr && compression.give_way()) return false;
    ZSTD_inBuffer in = {b->data + b->begin, b->size(), 0};
    const ZSTD_EndDirective mode = b->next == nullptr ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
      const size_t room = ZSTD_compressBound(in.size - in.pos) + ZSTD_CStreamOutSize();
      if (out.size - out.pos < room) {
        compressed_.resize(std::max(2 * compressed_.size(), out.pos + room));
        out.dst = compressed_.data();
        out.size = compressed_.size();
      }
      const size_t left = ZSTD_compressStream2(zstd_, &out, &in, mode);
      if (ZSTD_isError(left)) return false;
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
    }
  }
  compressed_size_ = out.pos;
  // compressed_generation: type, generation, uncompressed length, data length, data.
  uint8_t* p = record_;
  *p++ = static_cast<uint8_t>(format::EventType::kCompressedGeneration);
  p = format::PutUvarint(p, frames.gen);
  p = format::PutUvarint(p, frames.bytes());
  p = format::PutUvarint(p, compressed_size_);
  record_size_ = p - record_;
  return true;
}

bool GenerationWriter::WriteDatagrams(const GenerationFrames& frames, const uint8_t* file_header,
                                      size_t file_header_size, Destination& destination) {
  if (!destination.Write(file_header, file_header_size)) return false;
  for (Buffer* b = frames.buffers.head; b != nullptr; b = b->next) {
    if (!WriteFramesAsDatagrams(b->data + b->begin, b->data + b->end, destination)) return false;
  }
  return true;
}

bool WriteFramesAsDatagrams(const uint8_t* begin, const uint8_t* end, Destination& destination) {
  for (const uint8_t* p = begin; p < end;) {
    const size_t size = FrameSize(p, end);
    if (!destination.Write(p, size)) return false;
    p += size;
  }
  return true;
}

}  // namespace tracewire::runtime
