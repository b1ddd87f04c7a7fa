// FrameReader: splits a trace byte stream into complete generations of top-level frames.
// It checks the file header (and skips the repeated headers writers put between
// generations), frame syntax (through format::RecordDecoder), that a generation's frames do
// not interleave with another generation's and end with a matching end_of_generation, and
// decompresses compressed_generation frames. Generation numbering is per process and is
// checked by the GenerationDecoder. Memory is bounded by one generation plus one read chunk.
#ifndef TRACEWIRE_READER_FRAME_READER_H_
#define TRACEWIRE_READER_FRAME_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "reader/byte_source.h"

namespace tracewire::reader {

// One top-level frame of a generation (never end_of_generation).
struct Frame {
  format::EventType type = format::EventType::kNone;
  uint64_t args[format::kMaxArgs] = {};
  absl::string_view payload;    // body of a batch frame, or data of an experimental_batch
  uint64_t offset = 0;          // byte offset of the frame's type byte
  uint64_t payload_offset = 0;  // byte offset of payload[0]
};

// A complete generation: its frames in file order, end_of_generation excluded. For a
// compressed generation, `offset` fields count bytes of the decompressed generation.
struct RawGeneration {
  uint64_t gen = 0;
  uint32_t version = format::kFormatVersion;  // format version of the file header before it
  uint64_t file_offset = 0;                   // file offset of the generation's first frame
  uint64_t file_bytes = 0;                    // bytes the generation occupies in the file
  uint64_t raw_bytes = 0;                     // bytes of the (decompressed) frames
  bool compressed = false;
  std::vector<Frame> frames;

  // "generation 3", or "generation 3 (compressed at byte offset 1234)" for messages.
  std::string Describe() const;
};

// Reads generations from a ByteSource.
class FrameReader {
 public:
  // `source` must outlive the reader. `chunk_size` is the read granularity.
  explicit FrameReader(ByteSource* source, size_t chunk_size = size_t{1} << 20);
  ~FrameReader();

  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  // Reads and checks the 16-byte file header; returns the format version. Call once, first.
  absl::StatusOr<uint32_t> ReadHeader();

  // Reads the next complete generation into *gen. Returns false when the input ends
  // exactly after a generation. Views in *gen stay valid until the next call. Errors:
  // OutOfRange if the input ends inside a generation, DataLoss for malformed frames or
  // generation structure, ResourceExhausted for a generation above kMaxGenerationSize.
  // Every message starts with the generation and byte offset it concerns.
  absl::StatusOr<bool> Next(RawGeneration* gen);

  // The flags (format::kFileFlag*) of every file header read so far, or-ed together.
  uint32_t header_flags() const { return header_flags_; }

  // Bytes of the headers and of every generation Next returned successfully.
  uint64_t complete_bytes() const { return complete_end_ - skipped_bytes_; }

  // Salvage: after ReadHeader() or Next() failed on the trace's bytes (not on an I/O
  // error), skips the damage and finds the next place the trace may go on, scanning from
  // the byte after the start of the damaged generation (a damaged frame may have swallowed
  // what follows it): a valid file header, the byte after the end_of_generation of the
  // damaged generation, or a frame of the generation after it. Returns true if it found
  // one (call ReadHeader() again if ReadHeader() had failed, else Next()), false if the
  // input ends first. ResourceExhausted once the rescanning budget (bytes framed again,
  // at most eight times the input read plus 16 MiB, so hostile input cannot make salvage
  // quadratic) is spent; other errors are I/O errors. The skipped bytes do not count in
  // complete_bytes().
  absl::StatusOr<bool> Resync();

  // Bytes skipped by Resync() so far.
  uint64_t skipped_bytes() const { return skipped_bytes_; }

  // True if the last successful Resync() resumed at a file header (a strong sign that a
  // new writer's data starts there), false if at a generation boundary it inferred from
  // frame numbers (which data inside a damaged generation can imitate).
  bool resumed_at_header() const { return resumed_at_header_; }

  // After Next failed: timed-event records found in the event batches of the partial
  // generation that could be framed (a lower bound of the events lost).
  uint64_t CountPartialEvents() const;

  // Total input size: the source's Size() if known, else reads and discards the rest.
  absl::StatusOr<uint64_t> TotalSize();

 private:
  struct PendingFrame {
    format::EventType type;
    uint64_t args[format::kMaxArgs];
    size_t pos;          // of the type byte, in buf_
    size_t payload_pos;  // in buf_
    size_t payload_size;
  };

  // Reads at least one more byte unless at the end of input; returns false at the end.
  absl::StatusOr<bool> Fill();
  // Decompresses a compressed_generation frame and frames its content into *gen.
  absl::Status ReadCompressed(const PendingFrame& frame, uint64_t frame_size, RawGeneration* gen);
  // Prefix for messages about the generation being read.
  std::string Where() const;
  uint64_t FileOffset(size_t pos) const { return buf_offset_ + pos; }
  // Drops the first `n` bytes of the buffer.
  void Drop(size_t n);
  // Resync(): whether the trace may go on at buffer index `pos` (then at *resume), or
  // more bytes are needed to tell.
  enum class Probe { kNo, kYes, kMore };
  Probe IsResyncPoint(size_t pos, size_t* resume) const;
  // Whether the bytes at `pos` are the end of the input, a valid file header, or a frame
  // (of generation `gen`, if given) that decodes whole, batch body included.
  Probe ProbeFrame(size_t pos, std::optional<uint64_t> gen) const;

  ByteSource* source_;
  size_t chunk_size_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;
  size_t len_ = 0;           // valid bytes in buf_
  size_t scan_ = 0;          // start of the next unread frame in buf_
  uint64_t buf_offset_ = 0;  // file offset of buf_[0]
  uint64_t bytes_read_ = 0;
  bool eof_ = false;
  uint64_t complete_end_ = 0;   // file offset where the last complete header/generation ends
  uint64_t skipped_bytes_ = 0;  // bytes Resync() skipped
  uint64_t rescanned_bytes_ = 0;
  size_t framed_to_ = 0;  // buffer index Next() had framed up to
  bool resumed_at_header_ = false;
  bool weak_attempt_ = false;  // framing from an inferred boundary, no generation done yet
  uint32_t header_flags_ = 0;
  // Format version of the last file header read (of the frames that follow it).
  uint32_t version_ = format::kFormatVersion;
  std::optional<uint64_t> prev_gen_;
  std::optional<uint64_t> cur_gen_;
  // The generation that was damaged when Next() last failed (Resync() looks for its end
  // and for the generation after it).
  std::optional<uint64_t> damaged_gen_;
  std::vector<PendingFrame> pending_;
  std::unique_ptr<char[]> raw_;  // decompressed generation
  size_t raw_cap_ = 0;
  // Views of the decompressed frames of the last failed compressed generation.
  std::vector<Frame> partial_compressed_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_FRAME_READER_H_
