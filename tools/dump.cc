#include "tools/dump.h"

#include <zstd.h>

#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/constants.h"
#include "format/file_header.h"
#include "format/raw_decoder.h"
#include "format/varint.h"

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

absl::Status DumpFrames(absl::string_view frames, uint64_t base, std::ostream& out) {
  const absl::string_view magic(reinterpret_cast<const char*>(format::kFileMagic),
                                sizeof(format::kFileMagic));
  size_t pos = 0;
  while (pos < frames.size()) {
    if (frames.substr(pos, magic.size()) == magic) {
      absl::StatusOr<uint32_t> version = format::ParseFileHeader(frames.substr(pos));
      if (!version.ok()) return version.status();
      out << absl::StrFormat("%08x file_header version=%d\n", base + pos, *version);
      pos += format::kFileHeaderSize;
      continue;
    }
    format::RecordDecoder decoder(frames.substr(pos), base + pos, format::Scope::kFrame);
    format::RawEvent frame;
    absl::StatusOr<bool> got = decoder.Next(&frame);
    if (!got.ok()) return got.status();
    out << FormatRecord(frame) << "\n";
    pos += frame.size;
    if (frame.spec->body != format::BodyKind::kNone) {
      format::RecordDecoder body(frame.body, frame.body_offset, format::BodyScope(frame.spec->body));
      format::RawEvent record;
      for (;;) {
        absl::StatusOr<bool> more = body.Next(&record);
        if (!more.ok()) return more.status();
        if (!*more) break;
        out << "  " << FormatRecord(record) << "\n";
      }
    }
    if (frame.type == static_cast<uint8_t>(format::EventType::kCompressedGeneration)) {
      const uint64_t raw_length = frame.Arg("raw_length");
      if (raw_length > format::kMaxGenerationSize) {
        return absl::DataLossError("compressed generation too large");
      }
      std::string raw(raw_length, '\0');
      const size_t n = ZSTD_decompress(raw.data(), raw.size(), frame.data.data(), frame.data.size());
      if (ZSTD_isError(n) || n != raw_length) {
        return absl::DataLossError(absl::StrFormat(
            "byte offset %d: compressed generation does not decompress to %d bytes",
            frame.offset, raw_length));
      }
      out << "  (decompressed; offsets below are within the generation)\n";
      if (absl::Status s = DumpFrames(raw, 0, out); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DumpTrace(absl::string_view trace, std::ostream& out) {
  return DumpFrames(trace, 0, out);
}

}  // namespace tracewire::tools
