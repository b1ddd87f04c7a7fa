#include "tools/commands/dump.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/varint.h"
#include "reader/byte_source.h"
#include "reader/event.h"
#include "reader/symbolizer.h"

namespace tracewire::tools {
namespace {

std::string Preview(absl::string_view data) {
  std::string out;
  for (size_t i = 0; i < data.size() && i < 60; ++i) {
    const unsigned char c = data[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(c);
    } else {
      absl::StrAppendFormat(&out, "\\x%02x", c);
    }
  }
  if (data.size() > 60) absl::StrAppend(&out, "...");
  return out;
}

// " flight_recorder_dump" if the file header at the start of `header` says so.
const char* FlightDumpMark(absl::string_view header) {
  return (format::FileHeaderFlags(header) & format::kFileFlagFlightRecorderDump) != 0
             ? " flight_recorder_dump"
             : "";
}

std::string FormatRecord(const format::RawEvent& event) {
  std::string line = absl::StrFormat("%08x %s", event.offset, event.Name());
  if (event.spec == nullptr) {
    absl::StrAppendFormat(&line, " dt=%d", event.args[0]);
  } else {
    const auto args = event.spec->Args();
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].type == format::ArgType::kInt) {
        absl::StrAppendFormat(&line, " %s=%d", args[i].name, format::ZigzagDecode(event.args[i]));
      } else {
        absl::StrAppendFormat(&line, " %s=%d", args[i].name, event.args[i]);
      }
    }
    for (const format::StackFrame& f : event.frames) {
      absl::StrAppendFormat(&line, " [pc=0x%x func=%d file=%d line=%d]", f.pc, f.func_string,
                            f.file_string, f.line);
    }
  }
  if (event.spec == nullptr || event.spec->has_data) {
    absl::StrAppendFormat(&line, " data(%d)=\"%s\"", event.data.size(), Preview(event.data));
  }
  return line;
}

// What a generation's tables say about its stacks, gathered while it is listed and
// printed, symbolized, after its end_of_generation.
class GenerationStacks {
 public:
  void Note(const format::RawEvent& record) {
    using format::EventType;
    switch (static_cast<EventType>(record.type)) {
      case EventType::kStringPart:
        parts_[record.args[0]].append(record.data.data(), record.data.size());
        break;
      case EventType::kString: {
        std::string& value = strings_[record.args[0]];
        auto part = parts_.find(record.args[0]);
        if (part != parts_.end()) {
          value = std::move(part->second);
          parts_.erase(part);
        }
        value.append(record.data.data(), record.data.size());
        break;
      }
      case EventType::kModule:
        modules_.push_back(
            {record.args[1], record.args[2], record.args[3], record.args[4], record.args[5]});
        break;
      case EventType::kStack:
        stacks_.emplace_back(record.args[0], record.frames);
        break;
      default:
        break;
    }
  }

  // Prints the stacks of the generation that just ended and forgets its tables.
  void Print(uint64_t gen, std::string* out) {
    if (!stacks_.empty()) {
      symbolizer_.ClearModules();
      for (const RawModule& m : modules_) {
        if (m.start < m.end) {
          symbolizer_.AddModule({m.start, m.end, m.bias, String(m.path), String(m.build_id)});
        }
      }
      absl::StrAppendFormat(out, "  (stacks of generation %d, symbolized)\n", gen);
      for (const auto& [id, frames] : stacks_) {
        absl::StrAppendFormat(out, "    stack %d:\n", id);
        for (size_t i = 0; i < frames.size(); ++i) {
          reader::SymbolFrame frame;
          frame.pc = frames[i].pc;
          frame.func = String(frames[i].func_string);
          frame.file = String(frames[i].file_string);
          frame.line = frames[i].line;
          // A frame in inlined code is its inline chain: the inlined functions first.
          chain_.clear();
          symbolizer_.Symbolize(frame, &chain_);
          for (size_t k = 0; k < chain_.size(); ++k) {
            absl::StrAppendFormat(out, "      #%-2d %s%s\n", i,
                                  k + 1 < chain_.size() ? "[inlined] " : "",
                                  reader::FrameText(chain_[k]));
          }
        }
      }
    }
    strings_.clear();
    parts_.clear();
    modules_.clear();
    stacks_.clear();
  }

 private:
  struct RawModule {
    uint64_t start, end, bias, path, build_id;
  };
  absl::string_view String(uint64_t id) const {
    auto it = strings_.find(id);
    return it == strings_.end() ? absl::string_view() : absl::string_view(it->second);
  }

  absl::flat_hash_map<uint64_t, std::string> strings_;
  absl::flat_hash_map<uint64_t, std::string> parts_;
  std::vector<RawModule> modules_;
  std::vector<std::pair<uint64_t, std::vector<format::StackFrame>>> stacks_;
  reader::FrameSymbolizer symbolizer_;      // its cache outlives the generation
  std::vector<reader::SymbolFrame> chain_;  // one frame symbolized
};

// Dumps one frame (already decoded as `frame`) and its body; a compressed generation is
// decompressed and its frames dumped too. `version`: the format version the frame is in.
absl::Status DumpFrame(const format::RawEvent& frame, OutputFile* out, GenerationStacks& stacks,
                       uint32_t version);

// Dumps the frames of `frames` (a decompressed generation), whose first byte is at `base`.
absl::Status DumpFrames(absl::string_view frames, uint64_t base, OutputFile* out,
                        GenerationStacks& stacks, uint32_t version) {
  const absl::string_view magic(reinterpret_cast<const char*>(format::kFileMagic),
                                sizeof(format::kFileMagic));
  size_t pos = 0;
  while (pos < frames.size()) {
    if (frames.substr(pos, magic.size()) == magic) {
      absl::StatusOr<uint32_t> header = format::ParseFileHeader(frames.substr(pos));
      if (!header.ok()) return header.status();
      absl::StrAppendFormat(out->buffer(), "%08x file_header version=%d%s\n", base + pos, *header,
                            FlightDumpMark(frames.substr(pos)));
      version = *header;
      pos += format::kFileHeaderSize;
      continue;
    }
    format::RecordDecoder decoder(frames.substr(pos), base + pos, format::Scope::kFrame);
    format::RawEvent frame;
    absl::StatusOr<bool> got = decoder.Next(&frame);
    if (!got.ok()) return got.status();
    pos += frame.size;
    if (absl::Status s = DumpFrame(frame, out, stacks, version); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status DumpFrame(const format::RawEvent& frame, OutputFile* out, GenerationStacks& stacks,
                       uint32_t version) {
  std::string* text = out->buffer();
  absl::StrAppend(text, FormatRecord(frame), "\n");
  if (frame.spec->body != format::BodyKind::kNone) {
    format::RecordDecoder body(frame.body, frame.body_offset, format::BodyScope(frame.spec->body),
                               version);
    format::RawEvent record;
    for (;;) {
      absl::StatusOr<bool> more = body.Next(&record);
      if (!more.ok()) return more.status();
      if (!*more) break;
      absl::StrAppend(text, "  ", FormatRecord(record), "\n");
      stacks.Note(record);
    }
  }
  if (frame.type == static_cast<uint8_t>(format::EventType::kEndOfGeneration)) {
    stacks.Print(frame.Arg("gen"), text);
  }
  if (absl::Status s = out->MaybeFlush(); !s.ok()) return s;
  if (frame.type == static_cast<uint8_t>(format::EventType::kCompressedGeneration)) {
    const uint64_t raw_length = frame.Arg("raw_length");
    if (raw_length > format::kMaxGenerationSize) {
      return absl::DataLossError(absl::StrFormat(
          "byte offset %d: compressed generation of %d bytes exceeds the maximum generation size",
          frame.offset, raw_length));
    }
    std::string raw(raw_length, '\0');
    const size_t n = ZSTD_decompress(raw.data(), raw.size(), frame.data.data(), frame.data.size());
    if (ZSTD_isError(n) || n != raw_length) {
      return absl::DataLossError(
          absl::StrFormat("byte offset %d: compressed generation does not decompress to %d bytes",
                          frame.offset, raw_length));
    }
    absl::StrAppend(text, "  (decompressed; offsets below are within the generation)\n");
    if (absl::Status s = DumpFrames(raw, 0, out, stacks, version); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DumpTrace(reader::ByteSource* source, OutputFile* out) {
  constexpr size_t kChunk = size_t{1} << 20;
  // buf[0, len) are unread bytes (buf[0] is at file offset `base`); buf only grows, so
  // reading does not zero-fill a chunk each time.
  std::string buf;
  size_t len = 0;
  uint64_t base = 0;
  size_t pos = 0;  // next frame in buf
  bool eof = false;
  GenerationStacks stacks;
  uint32_t format_version = format::kFormatVersion;  // of the last file header
  // Reads more, dropping what was dumped; false at the end of the input.
  auto fill = [&]() -> absl::StatusOr<bool> {
    if (eof) return false;
    if (pos > 0) {
      std::memmove(buf.data(), buf.data() + pos, len - pos);
      len -= pos;
      base += pos;
      pos = 0;
    }
    if (buf.size() - len < kChunk / 2) buf.resize(std::max(2 * buf.size(), len + kChunk));
    absl::StatusOr<size_t> n = source->Read(buf.data() + len, buf.size() - len);
    if (!n.ok()) return n.status();
    len += *n;
    if (*n == 0) eof = true;
    return *n > 0;
  };
  const absl::string_view magic(reinterpret_cast<const char*>(format::kFileMagic),
                                sizeof(format::kFileMagic));
  while (true) {
    if (pos == len) {
      absl::StatusOr<bool> more = fill();
      if (!more.ok()) return more.status();
      if (!*more) return absl::OkStatus();
      continue;
    }
    const absl::string_view rest = absl::string_view(buf.data() + pos, len - pos);
    if (rest.substr(0, magic.size()) == magic.substr(0, std::min(rest.size(), magic.size()))) {
      if (rest.size() < format::kFileHeaderSize && !eof) {
        absl::StatusOr<bool> more = fill();
        if (!more.ok()) return more.status();
        continue;
      }
      absl::StatusOr<uint32_t> version = format::ParseFileHeader(rest);
      if (!version.ok()) {
        return absl::Status(version.status().code(),
                            absl::StrFormat("file header at byte offset %d: %s", base + pos,
                                            version.status().message()));
      }
      absl::StrAppendFormat(out->buffer(), "%08x file_header version=%d%s\n", base + pos, *version,
                            FlightDumpMark(rest));
      pos += format::kFileHeaderSize;
      format_version = *version;
      continue;
    }
    format::RecordDecoder decoder(rest, base + pos, format::Scope::kFrame);
    format::RawEvent frame;
    absl::StatusOr<bool> got = decoder.Next(&frame);
    if (!got.ok()) {
      if (absl::IsOutOfRange(got.status()) && !eof) {
        absl::StatusOr<bool> more = fill();
        if (!more.ok()) return more.status();
        continue;
      }
      return got.status();
    }
    pos += frame.size;
    if (absl::Status s = DumpFrame(frame, out, stacks, format_version); !s.ok()) return s;
  }
}

}  // namespace tracewire::tools
