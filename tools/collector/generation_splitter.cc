#include "tools/collector/generation_splitter.h"

#include <zstd.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "format/event_spec.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/raw_event.h"

namespace tracewire::tools {
namespace {

using format::EventType;

bool Is(const format::RawEvent& event, EventType type) {
  return event.type == static_cast<uint8_t>(type);
}

// The bytes of string `id` in the string batches of `frames` (parts concatenated).
absl::StatusOr<std::optional<std::string>> FindString(absl::string_view frames, uint64_t id) {
  format::RecordDecoder frames_decoder(frames, 0, format::Scope::kFrame);
  format::RawEvent frame;
  std::string value;
  while (true) {
    absl::StatusOr<bool> more = frames_decoder.Next(&frame);
    if (!more.ok()) return more.status();
    if (!*more) return std::nullopt;
    if (!Is(frame, EventType::kStringBatch)) continue;
    format::RecordDecoder body(frame.body, frame.body_offset, format::Scope::kStringBody);
    format::RawEvent record;
    while (true) {
      absl::StatusOr<bool> has = body.Next(&record);
      if (!has.ok()) return has.status();
      if (!*has) break;
      if (record.Arg("id") != id) continue;
      value.append(record.data.data(), record.data.size());
      if (Is(record, EventType::kString)) return value;
    }
  }
}

// The raw generation inside a compressed_generation frame.
absl::StatusOr<std::string> Decompress(const format::RawEvent& frame, size_t max_generation_size) {
  const uint64_t raw_length = frame.Arg("raw_length");
  if (raw_length > max_generation_size) {
    return absl::ResourceExhaustedError(
        absl::StrCat("compressed generation of ", raw_length, " bytes exceeds the limit"));
  }
  std::string raw(raw_length, '\0');
  const size_t n = ZSTD_decompress(raw.data(), raw.size(), frame.data.data(), frame.data.size());
  if (ZSTD_isError(n) || n != raw_length) {
    return absl::DataLossError("compressed generation does not decompress to raw_length bytes");
  }
  return raw;
}

}  // namespace

absl::StatusOr<bool> GenerationEndsProcess(absl::string_view frames, size_t max_generation_size,
                                           uint32_t version) {
  format::RecordDecoder decoder(frames, 0, format::Scope::kFrame);
  format::RawEvent frame;
  while (true) {
    absl::StatusOr<bool> more = decoder.Next(&frame);
    if (!more.ok()) return more.status();
    if (!*more) return false;
    if (Is(frame, EventType::kCompressedGeneration)) {
      absl::StatusOr<std::string> raw = Decompress(frame, max_generation_size);
      if (!raw.ok()) return raw.status();
      return GenerationEndsProcess(*raw, max_generation_size, version);
    }
    if (!Is(frame, EventType::kEventBatch)) continue;
    format::RecordDecoder body(frame.body, frame.body_offset, format::Scope::kEventBody, version);
    format::RawEvent record;
    while (true) {
      absl::StatusOr<bool> has = body.Next(&record);
      if (!has.ok()) return has.status();
      if (!*has) break;
      if (Is(record, EventType::kAtexit) || Is(record, EventType::kSignal)) return true;
    }
  }
}

absl::StatusOr<std::string> GenerationSid(absl::string_view frames, size_t max_generation_size) {
  format::RecordDecoder decoder(frames, 0, format::Scope::kFrame);
  format::RawEvent frame;
  std::optional<uint64_t> sid_id;
  while (true) {
    absl::StatusOr<bool> more = decoder.Next(&frame);
    if (!more.ok()) return more.status();
    if (!*more) break;
    if (Is(frame, EventType::kProcessInfo)) sid_id = frame.Arg("sid_string");
    if (Is(frame, EventType::kCompressedGeneration)) {
      absl::StatusOr<std::string> raw = Decompress(frame, max_generation_size);
      if (!raw.ok()) return raw.status();
      return GenerationSid(*raw, max_generation_size);
    }
  }
  if (!sid_id.has_value() || *sid_id == 0) return std::string();
  absl::StatusOr<std::optional<std::string>> sid = FindString(frames, *sid_id);
  if (!sid.ok()) return sid.status();
  return sid->value_or(std::string());
}

GenerationSplitter::GenerationSplitter(size_t max_generation_size)
    : max_size_(max_generation_size) {}

void GenerationSplitter::Append(absl::string_view bytes) {
  if (consumed_ > 0) {
    buf_.erase(0, consumed_);
    stream_offset_ += consumed_;
    pos_ -= consumed_;
    gen_start_ -= gen_open_ ? consumed_ : gen_start_;
    consumed_ = 0;
  }
  buf_.append(bytes.data(), bytes.size());
}

absl::StatusOr<std::optional<SplitGeneration>> GenerationSplitter::Next() {
  Append({});  // drops what the previous call consumed
  while (pos_ < buf_.size()) {
    const absl::string_view rest = absl::string_view(buf_).substr(pos_);
    if (!gen_open_ && static_cast<uint8_t>(rest[0]) == format::kFileMagic[0]) {
      // A file header: the runtime repeats it before every generation.
      if (rest.size() < format::kFileHeaderSize) return std::nullopt;
      absl::StatusOr<uint32_t> version = format::ParseFileHeader(rest);
      if (!version.ok()) {
        return absl::Status(version.status().code(),
                            absl::StrCat("stream offset ", stream_offset_ + pos_, ": ",
                                         version.status().message()));
      }
      version_ = *version;
      pos_ += format::kFileHeaderSize;
      consumed_ = pos_;
      continue;
    }
    format::RecordDecoder decoder(rest, stream_offset_ + pos_, format::Scope::kFrame);
    format::RawEvent frame;
    absl::StatusOr<bool> decoded = decoder.Next(&frame);
    if (!decoded.ok()) {
      if (!absl::IsOutOfRange(decoded.status())) return decoded.status();
      const size_t held = buf_.size() - (gen_open_ ? gen_start_ : pos_);
      if (held > max_size_ + format::kFileHeaderSize) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "stream offset ", stream_offset_ + pos_, ": generation exceeds ", max_size_, " bytes"));
      }
      return std::nullopt;  // the frame is not complete yet
    }
    const uint64_t gen = frame.Arg("gen");
    if (!gen_open_) {
      gen_open_ = true;
      gen_ = gen;
      gen_start_ = pos_;
    } else if (gen != gen_ || Is(frame, EventType::kCompressedGeneration)) {
      return absl::DataLossError(absl::StrCat("stream offset ", frame.offset, ": ", frame.Name(),
                                              " of generation ", gen, " inside generation ", gen_));
    }
    pos_ += frame.size;
    if (pos_ - gen_start_ > max_size_) {
      return absl::ResourceExhaustedError(
          absl::StrCat("stream offset ", stream_offset_ + gen_start_, ": generation exceeds ",
                       max_size_, " bytes"));
    }
    if (!Is(frame, EventType::kEndOfGeneration) && !Is(frame, EventType::kCompressedGeneration)) {
      continue;
    }
    SplitGeneration out;
    out.gen = gen_;
    out.version = version_;
    out.frames = absl::string_view(buf_).substr(gen_start_, pos_ - gen_start_);
    absl::StatusOr<std::string> sid = GenerationSid(out.frames, max_size_);
    if (!sid.ok()) return sid.status();
    out.sid = std::move(*sid);
    gen_open_ = false;
    consumed_ = pos_;
    return out;
  }
  return std::nullopt;
}

}  // namespace tracewire::tools
