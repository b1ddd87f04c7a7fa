#include "reader/frame_reader.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/raw_event.h"

namespace tracewire::reader {
namespace {

using format::EventType;

// Index of the `gen` argument of a frame row.
int GenArgIndex(EventType type) { return type == EventType::kExperimentalBatch ? 1 : 0; }

// Re-wraps `status` with `prefix` in front of its message, keeping the code.
absl::Status Prefixed(const absl::Status& status, absl::string_view prefix) {
  return absl::Status(status.code(), absl::StrCat(prefix, ": ", status.message()));
}

}  // namespace

std::string RawGeneration::Describe() const {
  if (compressed) {
    return absl::StrFormat("generation %d (compressed at byte offset %d)", gen, file_offset);
  }
  return absl::StrFormat("generation %d", gen);
}

FrameReader::FrameReader(ByteSource* source, size_t chunk_size)
    : source_(source), chunk_size_(std::max<size_t>(chunk_size, 64)) {}

FrameReader::~FrameReader() = default;

std::string FrameReader::Where() const {
  if (cur_gen_.has_value()) return absl::StrFormat("generation %d", *cur_gen_);
  if (prev_gen_.has_value()) return absl::StrFormat("after generation %d", *prev_gen_);
  return "first generation";
}

absl::StatusOr<bool> FrameReader::Fill() {
  if (eof_) return false;
  if (cap_ - len_ < chunk_size_) {
    const size_t new_cap = std::max(cap_ * 2, len_ + chunk_size_);
    std::unique_ptr<char[]> bigger(new char[new_cap]);
    if (len_ > 0) std::memcpy(bigger.get(), buf_.get(), len_);
    buf_ = std::move(bigger);
    cap_ = new_cap;
  }
  absl::StatusOr<size_t> n = source_->Read(buf_.get() + len_, cap_ - len_);
  if (!n.ok()) return Prefixed(n.status(), absl::StrFormat("byte offset %d", FileOffset(len_)));
  if (*n == 0) {
    eof_ = true;
    return false;
  }
  len_ += *n;
  bytes_read_ += *n;
  return true;
}

absl::StatusOr<uint32_t> FrameReader::ReadHeader() {
  while (len_ < format::kFileHeaderSize) {
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    if (!*more) break;
  }
  absl::StatusOr<uint32_t> version = format::ParseFileHeader(absl::string_view(buf_.get(), len_));
  if (!version.ok()) return Prefixed(version.status(), "file header");
  scan_ = format::kFileHeaderSize;
  complete_bytes_ = format::kFileHeaderSize;
  return version;
}

absl::StatusOr<bool> FrameReader::Next(RawGeneration* gen) {
  // Drop the bytes of the previous generation.
  if (scan_ > 0) {
    std::memmove(buf_.get(), buf_.get() + scan_, len_ - scan_);
    len_ -= scan_;
    buf_offset_ += scan_;
    scan_ = 0;
  }
  pending_.clear();
  partial_compressed_.clear();
  cur_gen_.reset();
  gen->frames.clear();
  gen->compressed = false;

  format::RawEvent raw;
  size_t pos = 0;
  while (true) {
    if (pos == len_) {
      absl::StatusOr<bool> more = Fill();
      if (!more.ok()) return Prefixed(more.status(), Where());
      if (!*more) {
        if (!cur_gen_.has_value()) return false;
        return absl::OutOfRangeError(
            absl::StrFormat("%s: byte offset %d: input ends inside the generation, before its "
                            "end_of_generation; the trace is likely truncated",
                            Where(), FileOffset(pos)));
      }
      continue;
    }
    if (!cur_gen_.has_value() && static_cast<unsigned char>(buf_[pos]) == format::kFileMagic[0]) {
      // A repeated file header between generations (the runtime writes one in front of
      // every generation so that processes may append to one file).
      if (len_ - pos < format::kFileHeaderSize && !eof_) {
        absl::StatusOr<bool> more = Fill();
        if (!more.ok()) return Prefixed(more.status(), Where());
        continue;
      }
      absl::StatusOr<uint32_t> version =
          format::ParseFileHeader(absl::string_view(buf_.get() + pos, len_ - pos));
      if (!version.ok()) {
        // Drop the header parser's own "byte offset N: " (relative to the header).
        absl::string_view reason = version.status().message();
        if (const size_t colon = reason.find(": "); colon != absl::string_view::npos) {
          reason.remove_prefix(colon + 2);
        }
        return absl::Status(version.status().code(),
                            absl::StrFormat("%s: byte offset %d: repeated file header: %s", Where(),
                                            FileOffset(pos), reason));
      }
      pos += format::kFileHeaderSize;
      complete_bytes_ = FileOffset(pos);
      continue;
    }
    format::RecordDecoder decoder(absl::string_view(buf_.get() + pos, len_ - pos), FileOffset(pos),
                                  format::Scope::kFrame);
    absl::StatusOr<bool> decoded = decoder.Next(&raw);
    if (!decoded.ok()) {
      if (absl::IsOutOfRange(decoded.status()) && !eof_) {
        absl::StatusOr<bool> more = Fill();
        if (!more.ok()) return Prefixed(more.status(), Where());
        continue;
      }
      return Prefixed(decoded.status(), Where());
    }
    const EventType type = static_cast<EventType>(raw.type);
    const uint64_t frame_gen = raw.args[GenArgIndex(type)];
    const uint64_t offset = FileOffset(pos);
    if (!cur_gen_.has_value()) {
      cur_gen_ = frame_gen;
      gen->gen = frame_gen;
      gen->file_offset = offset;
    } else if (frame_gen != *cur_gen_) {
      if (type == EventType::kEndOfGeneration) {
        return absl::DataLossError(
            absl::StrFormat("%s: byte offset %d: end_of_generation names generation %d", Where(),
                            offset, frame_gen));
      }
      return absl::DataLossError(absl::StrFormat(
          "%s: byte offset %d: %s of generation %d before the end_of_generation of "
          "generation %d; generations are interleaved or end_of_generation is missing",
          Where(), offset, raw.Name(), frame_gen, *cur_gen_));
    }

    PendingFrame frame;
    frame.type = type;
    std::copy(raw.args, raw.args + format::kMaxArgs, frame.args);
    frame.pos = pos;
    const absl::string_view payload = raw.body.data() != nullptr ? raw.body : raw.data;
    frame.payload_pos = payload.data() == nullptr ? pos : payload.data() - buf_.get();
    frame.payload_size = payload.size();

    if (type == EventType::kCompressedGeneration) {
      if (!pending_.empty()) {
        return absl::DataLossError(absl::StrFormat(
            "%s: byte offset %d: compressed_generation after other frames of the same "
            "generation; it must hold the whole generation",
            Where(), offset));
      }
      if (absl::Status s = ReadCompressed(frame, raw.size, gen); !s.ok()) return s;
      scan_ = pos + raw.size;
      prev_gen_ = cur_gen_;
      complete_bytes_ = FileOffset(scan_);
      return true;
    }
    pos += raw.size;
    if (type == EventType::kEndOfGeneration) {
      for (const PendingFrame& p : pending_) {
        Frame& f = gen->frames.emplace_back();
        f.type = p.type;
        std::copy(p.args, p.args + format::kMaxArgs, f.args);
        f.payload = absl::string_view(buf_.get() + p.payload_pos, p.payload_size);
        f.offset = FileOffset(p.pos);
        f.payload_offset = FileOffset(p.payload_pos);
      }
      gen->file_bytes = FileOffset(pos) - gen->file_offset;
      gen->raw_bytes = gen->file_bytes;
      scan_ = pos;
      prev_gen_ = cur_gen_;
      complete_bytes_ = FileOffset(scan_);
      pending_.clear();
      return true;
    }
    pending_.push_back(frame);
    if (pos > format::kMaxGenerationSize) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "%s: byte offset %d: generation exceeds the maximum generation size %d without an "
          "end_of_generation",
          Where(), FileOffset(pos), format::kMaxGenerationSize));
    }
  }
}

absl::Status FrameReader::ReadCompressed(const PendingFrame& frame, uint64_t frame_size,
                                         RawGeneration* gen) {
  gen->compressed = true;
  gen->file_bytes = frame_size;
  const std::string where = gen->Describe();
  const uint64_t raw_length = frame.args[1];
  if (raw_length > format::kMaxGenerationSize) {
    return absl::DataLossError(
        absl::StrFormat("%s: byte offset %d: raw_length %d exceeds the maximum generation size %d",
                        where, gen->file_offset, raw_length, format::kMaxGenerationSize));
  }
  if (raw_cap_ < raw_length || raw_ == nullptr) {
    raw_.reset(new char[std::max<uint64_t>(raw_length, 1)]);
    raw_cap_ = std::max<uint64_t>(raw_length, 1);
  }
  const size_t n =
      ZSTD_decompress(raw_.get(), raw_length, buf_.get() + frame.payload_pos, frame.payload_size);
  if (ZSTD_isError(n)) {
    return absl::DataLossError(absl::StrFormat("%s: byte offset %d: zstd: %s", where,
                                               gen->file_offset, ZSTD_getErrorName(n)));
  }
  if (n != raw_length) {
    return absl::DataLossError(
        absl::StrFormat("%s: byte offset %d: decompressed to %d bytes, raw_length says %d", where,
                        gen->file_offset, n, raw_length));
  }
  gen->raw_bytes = raw_length;
  const absl::string_view content(raw_.get(), raw_length);
  format::RecordDecoder decoder(content, 0, format::Scope::kFrame);
  format::RawEvent raw;
  const std::string inner = absl::StrCat(where, ": in the decompressed generation");
  while (true) {
    absl::StatusOr<bool> decoded = decoder.Next(&raw);
    if (!decoded.ok()) {
      // The content is complete, so a record that runs past its end is corrupt.
      return absl::DataLossError(absl::StrCat(inner, ": ", decoded.status().message()));
    }
    if (!*decoded) {
      return absl::DataLossError(
          absl::StrFormat("%s: byte offset %d: no end_of_generation", inner, raw_length));
    }
    const EventType type = static_cast<EventType>(raw.type);
    const uint64_t frame_gen = raw.args[GenArgIndex(type)];
    if (frame_gen != gen->gen) {
      return absl::DataLossError(absl::StrFormat("%s: byte offset %d: %s of generation %d", inner,
                                                 raw.offset, raw.Name(), frame_gen));
    }
    if (type == EventType::kCompressedGeneration) {
      return absl::DataLossError(
          absl::StrFormat("%s: byte offset %d: nested compressed_generation", inner, raw.offset));
    }
    if (type == EventType::kEndOfGeneration) {
      if (!decoder.AtEnd()) {
        return absl::DataLossError(
            absl::StrFormat("%s: byte offset %d: %d bytes after end_of_generation", inner,
                            decoder.offset(), raw_length - decoder.offset()));
      }
      gen->frames.swap(partial_compressed_);
      partial_compressed_.clear();
      return absl::OkStatus();
    }
    Frame& f = partial_compressed_.emplace_back();
    f.type = type;
    std::copy(raw.args, raw.args + format::kMaxArgs, f.args);
    f.payload = raw.body.data() != nullptr ? raw.body : raw.data;
    f.offset = raw.offset;
    f.payload_offset = f.payload.data() == nullptr ? raw.offset : f.payload.data() - raw_.get();
  }
}

uint64_t FrameReader::CountPartialEvents() const {
  uint64_t count = 0;
  auto count_body = [&count](absl::string_view body) {
    format::RecordDecoder decoder(body, 0, format::Scope::kEventBody);
    format::RawEvent raw;
    while (true) {
      absl::StatusOr<bool> decoded = decoder.Next(&raw);
      if (!decoded.ok() || !*decoded) return;
      ++count;
    }
  };
  for (const PendingFrame& p : pending_) {
    if (p.type == EventType::kEventBatch && p.payload_pos + p.payload_size <= len_) {
      count_body(absl::string_view(buf_.get() + p.payload_pos, p.payload_size));
    }
  }
  for (const Frame& f : partial_compressed_) {
    if (f.type == EventType::kEventBatch) count_body(f.payload);
  }
  return count;
}

absl::StatusOr<uint64_t> FrameReader::TotalSize() {
  if (std::optional<uint64_t> size = source_->Size(); size.has_value()) return *size;
  std::unique_ptr<char[]> scratch(new char[64 * 1024]);
  while (!eof_) {
    absl::StatusOr<size_t> n = source_->Read(scratch.get(), 64 * 1024);
    if (!n.ok()) return n.status();
    if (*n == 0) eof_ = true;
    bytes_read_ += *n;
  }
  return bytes_read_;
}

}  // namespace tracewire::reader
