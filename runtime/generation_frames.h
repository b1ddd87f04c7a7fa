// GenerationFrames: the frames of one generation, in order, held in pooled buffers — the
// generation being filled while threads record, and a finished one on its way out.
#ifndef TRACEWIRE_RUNTIME_GENERATION_FRAMES_H_
#define TRACEWIRE_RUNTIME_GENERATION_FRAMES_H_

#include <cstddef>
#include <cstdint>

#include "runtime/buffer_pool.h"

namespace tracewire::runtime {

struct GenerationFrames {
  uint64_t gen = 0;
  BufferList buffers;

  size_t bytes() const { return buffers.bytes; }
  bool empty() const { return buffers.empty(); }

  // Links a buffer holding whole frames in [begin, end).
  void AppendBuffer(Buffer* buffer) { buffers.Append(buffer); }

  // Copies one frame (at most kBufferSize bytes) after the last one, packing small frames
  // together into buffers taken from `pool`.
  void CopyFrame(const uint8_t* frame, size_t size, BufferPool& pool);

  // Moves the single frame held by `*buffer` here: a big frame's buffer is handed over and
  // *buffer replaced by a fresh one from `pool`; a small frame is copied and *buffer kept
  // (emptied) for reuse, so short partial batches do not each hold a whole buffer.
  void MoveFrame(Buffer** buffer, BufferPool& pool);

  // Moves the single frame held by `buffer` here: a big frame's buffer is linked, a small
  // frame is copied and the buffer given back to `pool`.
  void TakeFrame(Buffer* buffer, BufferPool& pool);

  // Returns every buffer to `pool`.
  void Release(BufferPool& pool) { pool.GiveAll(&buffers); }
};

// Makes `buffer` hold one frame: `header` is written right before the body, which starts
// `reserve` bytes into the buffer and is `body_size` long. header_size <= reserve.
void SealFrame(Buffer* buffer, size_t reserve, const uint8_t* header, size_t header_size,
               size_t body_size);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_GENERATION_FRAMES_H_
