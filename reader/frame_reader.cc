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
#include "format/varint.h"

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
  header_flags_ |= format::FileHeaderFlags(absl::string_view(buf_.get(), len_));
  version_ = *version;
  scan_ = format::kFileHeaderSize;
  complete_end_ = FileOffset(scan_);
  return version;
}

void FrameReader::Drop(size_t n) {
  if (n == 0) return;
  std::memmove(buf_.get(), buf_.get() + n, len_ - n);
  len_ -= n;
  buf_offset_ += n;
}

absl::StatusOr<bool> FrameReader::Next(RawGeneration* gen) {
  // Drop the bytes of the previous generation.
  Drop(scan_);
  scan_ = 0;
  if (!weak_attempt_) damaged_gen_.reset();
  pending_.clear();
  partial_compressed_.clear();
  cur_gen_.reset();
  gen->frames.clear();
  gen->compressed = false;

  format::RawEvent raw;
  size_t pos = 0;
  while (true) {
    framed_to_ = pos;
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
      header_flags_ |= format::FileHeaderFlags(absl::string_view(buf_.get() + pos, len_ - pos));
      version_ = *version;
      pos += format::kFileHeaderSize;
      complete_end_ = FileOffset(pos);
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
      if (!weak_attempt_) damaged_gen_ = frame_gen;
      gen->gen = frame_gen;
      gen->version = version_;
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
      damaged_gen_.reset();
      weak_attempt_ = false;
      complete_end_ = FileOffset(scan_);
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
      damaged_gen_.reset();
      weak_attempt_ = false;
      complete_end_ = FileOffset(scan_);
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
  auto count_body = [&count, this](absl::string_view body) {
    format::RecordDecoder decoder(body, 0, format::Scope::kEventBody, version_);
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

FrameReader::Probe FrameReader::ProbeFrame(size_t pos, std::optional<uint64_t> gen) const {
  if (pos == len_) return eof_ ? Probe::kYes : Probe::kMore;
  const absl::string_view rest(buf_.get() + pos, len_ - pos);
  if (static_cast<uint8_t>(rest[0]) == format::kFileMagic[0]) {
    if (rest.size() < format::kFileHeaderSize) {
      // A header cut by the end of the buffer: look again once more bytes are in.
      const size_t n = std::min(rest.size(), sizeof(format::kFileMagic));
      return !eof_ && std::memcmp(rest.data(), format::kFileMagic, n) == 0 ? Probe::kMore
                                                                           : Probe::kNo;
    }
    return format::ParseFileHeader(rest).ok() ? Probe::kYes : Probe::kNo;
  }
  const uint8_t type = static_cast<uint8_t>(rest[0]);
  if (type == 0 || type > static_cast<uint8_t>(EventType::kCompressedGeneration)) {
    return Probe::kNo;
  }
  format::RecordDecoder decoder(rest, 0, format::Scope::kFrame);
  format::RawEvent raw;
  absl::StatusOr<bool> decoded = decoder.Next(&raw);
  if (!decoded.ok()) {
    return absl::IsOutOfRange(decoded.status()) && !eof_ ? Probe::kMore : Probe::kNo;
  }
  if (gen.has_value() && raw.args[GenArgIndex(static_cast<EventType>(type))] != *gen) {
    return Probe::kNo;
  }
  if (raw.spec->body != format::BodyKind::kNone) {
    format::RecordDecoder body(raw.body, 0, format::BodyScope(raw.spec->body), version_);
    format::RawEvent record;
    while (true) {
      absl::StatusOr<bool> more = body.Next(&record);
      if (!more.ok()) return Probe::kNo;
      if (!*more) break;
    }
  }
  return Probe::kYes;
}

FrameReader::Probe FrameReader::IsResyncPoint(size_t pos, size_t* resume) const {
  const auto* p = reinterpret_cast<const uint8_t*>(buf_.get()) + pos;
  const auto* end = reinterpret_cast<const uint8_t*>(buf_.get()) + len_;
  if (*p == format::kFileMagic[0]) {
    *resume = pos;
    return ProbeFrame(pos, std::nullopt);
  }
  // A process's generations are numbered 1, 2, 3, ...: after generation P, damage to
  // generation N (P + 1, unless the damage hit the number itself), look for the
  // end_of_generation of P + 1 or N followed by the end of the input, a file header or a
  // well-formed frame (resume after it), and for a well-formed frame of generation 1 (a
  // new process), P + 1, P + 2 or N + 1 (resume at it).
  const uint64_t prev = prev_gen_.value_or(0);
  const uint64_t damaged = damaged_gen_.value_or(prev + 1);
  const uint8_t type = *p;
  if (type == 0 || type > static_cast<uint8_t>(EventType::kCompressedGeneration)) {
    return Probe::kNo;
  }
  const uint8_t* q = p + 1;
  uint64_t gen = 0;
  format::VarintResult result = format::GetUvarint(&q, end, &gen);
  if (result == format::VarintResult::kOk &&
      static_cast<EventType>(type) == EventType::kExperimentalBatch) {
    result = format::GetUvarint(&q, end, &gen);  // experiment, then gen
  }
  if (result == format::VarintResult::kTruncated) return eof_ ? Probe::kNo : Probe::kMore;
  if (result != format::VarintResult::kOk) return Probe::kNo;
  if (type == static_cast<uint8_t>(EventType::kEndOfGeneration)) {
    if (gen != prev + 1 && gen != damaged) return Probe::kNo;
    *resume = static_cast<size_t>(q - reinterpret_cast<const uint8_t*>(buf_.get()));
    return ProbeFrame(*resume, std::nullopt);
  }
  if (gen != 1 && gen != prev + 1 && gen != prev + 2 && gen != damaged + 1) return Probe::kNo;
  *resume = pos;
  return ProbeFrame(pos, gen);
}

absl::StatusOr<bool> FrameReader::Resync() {
  // The damaged region starts at buffer index 0 (Next() drops what came before it). The
  // bytes up to where framing stopped are scanned a second time.
  rescanned_bytes_ += framed_to_ + 1;
  if (rescanned_bytes_ > 8 * bytes_read_ + (uint64_t{16} << 20)) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "byte offset %d: resynchronisation abandoned after rescanning %d bytes (the input "
        "imitates generation boundaries)",
        FileOffset(0), rescanned_bytes_));
  }
  framed_to_ = 0;
  pending_.clear();
  partial_compressed_.clear();
  size_t pos = std::min<size_t>(1, len_);
  while (true) {
    Probe probe = Probe::kNo;
    size_t resume = 0;
    for (; pos < len_; ++pos) {
      probe = IsResyncPoint(pos, &resume);
      if (probe != Probe::kNo) break;
    }
    if (probe == Probe::kYes) {
      // Found: the trace goes on at `resume`.
      skipped_bytes_ += FileOffset(resume) - complete_end_;
      complete_end_ = FileOffset(resume);
      resumed_at_header_ =
          resume < len_ && static_cast<uint8_t>(buf_[resume]) == format::kFileMagic[0];
      Drop(resume);
      scan_ = 0;
      cur_gen_.reset();
      // At a header, a new writer may start; at an inferred boundary, the damage may go
      // on, and a later resync still looks for the ends of the generation first damaged.
      weak_attempt_ = !resumed_at_header_;
      if (resumed_at_header_) damaged_gen_.reset();
      return true;
    }
    // Keep the bytes from `pos` on (a candidate's prefix, or nothing) and read more.
    Drop(pos);
    pos = 0;
    absl::StatusOr<bool> more = Fill();
    if (!more.ok()) return more.status();
    if (!*more && len_ == 0) {
      // The input ends in the damage.
      skipped_bytes_ += FileOffset(0) - complete_end_;
      complete_end_ = FileOffset(0);
      return false;
    }
  }
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
