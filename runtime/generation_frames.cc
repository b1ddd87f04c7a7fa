#include "runtime/generation_frames.h"

#include <cstring>

namespace tracewire::runtime {
namespace {

// Frames at least this big keep their buffer when moved into a generation; smaller ones
// are copied (the advancer copies at most this much per buffer while threads wait).
constexpr size_t kHandOverSize = 16 * 1024;

}  // namespace

void GenerationFrames::CopyFrame(const uint8_t* frame, size_t size, BufferPool& pool) {
  Buffer* last = buffers.tail;
  if (last == nullptr || !last->packed || kBufferSize - last->end < size) {
    last = pool.Take();
    last->packed = true;
    buffers.Append(last);
  }
  memcpy(last->data + last->end, frame, size);
  last->end += size;
  buffers.bytes += size;
}

void GenerationFrames::MoveFrame(Buffer** buffer, BufferPool& pool) {
  Buffer* full = *buffer;
  if (full->size() == 0) return;
  if (full->size() >= kHandOverSize) {
    AppendBuffer(full);
    *buffer = pool.Take();
    return;
  }
  CopyFrame(full->data + full->begin, full->size(), pool);
  full->begin = full->end = 0;
}

void GenerationFrames::TakeFrame(Buffer* buffer, BufferPool& pool) {
  if (buffer->size() >= kHandOverSize) {
    AppendBuffer(buffer);
    return;
  }
  if (buffer->size() != 0) CopyFrame(buffer->data + buffer->begin, buffer->size(), pool);
  pool.Give(buffer);
}

void SealFrame(Buffer* buffer, size_t reserve, const uint8_t* header, size_t header_size,
               size_t body_size) {
  buffer->begin = static_cast<uint32_t>(reserve - header_size);
  buffer->end = static_cast<uint32_t>(reserve + body_size);
  memcpy(buffer->data + buffer->begin, header, header_size);
}

}  // namespace tracewire::runtime
