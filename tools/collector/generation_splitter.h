// GenerationSplitter: cuts a runtime's output stream (what a traced process sends over a
// socket: "file header + generation", again and again) into complete generations, each
// with the sid of the process that wrote it. It frames with format::RecordDecoder only and
// buffers one generation at most, so a collector can hold one splitter per connection.
//
//   GenerationSplitter splitter;
//   splitter.Append(received);
//   while (true) {
//     absl::StatusOr<std::optional<SplitGeneration>> gen = splitter.Next();
//     if (!gen.ok()) { /* malformed stream: drop the connection */ }
//     if (!gen->has_value()) break;  // needs more bytes
//     Store((*gen)->sid, (*gen)->frames);
//   }
#ifndef TRACEWIRE_TOOLS_COLLECTOR_GENERATION_SPLITTER_H_
#define TRACEWIRE_TOOLS_COLLECTOR_GENERATION_SPLITTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "format/constants.h"

namespace tracewire::tools {

// One complete generation of the stream.
struct SplitGeneration {
  uint64_t gen = 0;
  // The sid of its process_info, resolved through its string table; empty if the
  // generation has no process_info or its sid string is missing (an invalid generation).
  std::string sid;
  // Its frames, end_of_generation included (or its one compressed_generation frame),
  // without file headers: a file header followed by these bytes is a valid trace. Valid
  // until the next call to Append or Next.
  absl::string_view frames;
  // The format version of the file header the stream put in front of it (the frames are in
  // that version).
  uint32_t version = format::kFormatVersion;
};

class GenerationSplitter {
 public:
  // A generation (or one frame) above `max_generation_size` bytes is an error.
  explicit GenerationSplitter(size_t max_generation_size = format::kMaxGenerationSize);

  // Adds bytes received from the stream.
  void Append(absl::string_view bytes);

  // The next complete generation, nullopt if more bytes are needed. Errors (the stream is
  // malformed and cannot be resynchronized): DataLoss for bad frames or a frame of another
  // generation inside an open one, Unimplemented for an unknown format version,
  // ResourceExhausted for a generation above the size limit.
  absl::StatusOr<std::optional<SplitGeneration>> Next();

  // True while bytes of an unfinished generation (or header) are buffered: a stream that
  // ends now loses them.
  bool has_partial() const { return buf_.size() > pos_ || gen_open_; }

  // Bytes buffered (memory held for this stream).
  size_t buffered_bytes() const { return buf_.size(); }

 private:
  size_t max_size_;
  std::string buf_;
  size_t pos_ = 0;        // start of the next frame to decode
  size_t gen_start_ = 0;  // start of the open generation's first frame
  size_t consumed_ = 0;   // bytes before this may be dropped on the next call
  bool gen_open_ = false;
  uint64_t gen_ = 0;
  uint32_t version_ = format::kFormatVersion;  // of the last file header
  uint64_t stream_offset_ = 0;                 // stream offset of buf_[0], for messages
};

// The sid of the generation whose frames (end_of_generation included) are `frames`:
// process_info's sid_string looked up in the string batches; empty if absent. `frames`
// may also be a single compressed_generation frame. Errors: malformed frames or a bad
// compressed payload.
absl::StatusOr<std::string> GenerationSid(absl::string_view frames,
                                          size_t max_generation_size = format::kMaxGenerationSize);

// True if the generation whose frames are `frames` (as for GenerationSid) records its
// process's end: an atexit or signal event. Errors: malformed frames or batch bodies, a bad
// compressed payload.
absl::StatusOr<bool> GenerationEndsProcess(absl::string_view frames,
                                           size_t max_generation_size = format::kMaxGenerationSize,
                                           uint32_t version = format::kFormatVersion);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_GENERATION_SPLITTER_H_
