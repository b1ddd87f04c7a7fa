// Fuzz target: the varint layer and the spec-driven raw decoder (format/varint.h,
// format/raw_decoder.h), which every reader path stands on.
//
// Beyond "no crash, no sanitizer report", it checks:
//   * GetUvarint at every input position against a bit-by-bit reference decoder (value,
//     length, and which error), and that a decoded value re-encodes minimally to something
//     that decodes to the same value;
//   * zigzag round trips of 8-byte values;
//   * RecordDecoder in every scope, batch bodies recursively: each record lies inside its
//     input, offsets strictly increase, and a record whose varints are minimal re-encodes
//     (format::AppendRecord) to exactly the bytes it was decoded from;
//   * `tracewire dump`'s streaming dumper, reading the input in 64-byte chunks, writes the
//     same lines as when it reads it whole.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "format/constants.h"
#include "format/event_spec.h"
#include "format/raw_decoder.h"
#include "format/raw_event.h"
#include "format/record_encoder.h"
#include "format/varint.h"
#include "reader/byte_source.h"
#include "tools/commands/dump.h"
#include "tools/cli/output_file.h"

namespace {

namespace format = tracewire::format;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "raw_fuzzer: %s\n", what);
  std::abort();
}

// The varint rules of docs/format.md §2, written the slow and obvious way.
format::VarintResult ReferenceUvarint(const uint8_t* p, const uint8_t* end, uint64_t* value,
                                      size_t* length) {
  unsigned __int128 result = 0;
  for (size_t i = 0; i < format::kMaxVarintSize; ++i) {
    if (p + i >= end) return format::VarintResult::kTruncated;
    const uint8_t byte = p[i];
    if (i == format::kMaxVarintSize - 1) {
      if (byte & 0x80) return format::VarintResult::kOverlong;
      if (byte > 1) return format::VarintResult::kOverflow;
    }
    result |= static_cast<unsigned __int128>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *value = static_cast<uint64_t>(result);
      *length = i + 1;
      return format::VarintResult::kOk;
    }
  }
  return format::VarintResult::kOverlong;
}

void CheckVarints(const uint8_t* data, size_t size) {
  const uint8_t* const end = data + size;
  for (size_t i = 0; i < size; ++i) {
    const uint8_t* pos = data + i;
    uint64_t value = 0;
    const format::VarintResult result = format::GetUvarint(&pos, end, &value);
    uint64_t expected = 0;
    size_t length = 0;
    const format::VarintResult reference = ReferenceUvarint(data + i, end, &expected, &length);
    if (result != reference) Fail("GetUvarint and the reference disagree on the outcome");
    if (result != format::VarintResult::kOk) {
      if (pos != data + i) Fail("a failed GetUvarint moved the position");
      (void)format::VarintResultName(result);
      continue;
    }
    if (value != expected || pos != data + i + length) Fail("GetUvarint decoded another value");
    uint8_t buffer[format::kMaxVarintSize];
    const uint8_t* const written = format::PutUvarint(buffer, value);
    if (static_cast<size_t>(written - buffer) != format::UvarintSize(value)) {
      Fail("UvarintSize disagrees with PutUvarint");
    }
    if (format::UvarintSize(value) > length) Fail("the minimal encoding is longer than the input");
    std::string appended;
    format::AppendUvarint(&appended, value);
    if (appended != std::string(reinterpret_cast<const char*>(buffer), written - buffer)) {
      Fail("AppendUvarint and PutUvarint differ");
    }
    const uint8_t* again = buffer;
    uint64_t round_trip = 0;
    if (format::GetUvarint(&again, written, &round_trip) != format::VarintResult::kOk ||
        round_trip != value || again != written) {
      Fail("a re-encoded varint does not decode back");
    }
  }
  for (size_t i = 0; i + 8 <= size; i += 8) {
    int64_t signed_value;
    std::memcpy(&signed_value, data + i, 8);
    if (format::ZigzagDecode(format::ZigzagEncode(signed_value)) != signed_value) {
      Fail("zigzag does not round-trip");
    }
    uint64_t unsigned_value;
    std::memcpy(&unsigned_value, data + i, 8);
    if (format::ZigzagEncode(format::ZigzagDecode(unsigned_value)) != unsigned_value) {
      Fail("zigzag does not round-trip (decode first)");
    }
  }
}

// Decodes every record of `input` in `scope`, bodies recursively; `depth` bounds the
// recursion (a body's records have no bodies of their own, so it stays at 1).
void CheckRecords(absl::string_view input, uint64_t base, format::Scope scope, int depth) {
  if (depth > 1) Fail("a body record has a body");
  format::RecordDecoder decoder(input, base, scope);
  format::RawEvent record;
  uint64_t previous_end = base;
  while (true) {
    const uint64_t offset = decoder.offset();
    absl::StatusOr<bool> more = decoder.Next(&record);
    if (!more.ok()) {
      if (decoder.offset() != offset) Fail("a failed Next() moved the decoder");
      return;
    }
    if (!*more) {
      if (!decoder.AtEnd() || offset != base + input.size()) Fail("end before the input's end");
      return;
    }
    if (record.offset != offset || record.offset != previous_end) Fail("a gap between records");
    if (record.size == 0 || record.offset + record.size > base + input.size() ||
        decoder.offset() != record.offset + record.size) {
      Fail("a record's size does not match what the decoder consumed");
    }
    previous_end = record.offset + record.size;
    (void)record.Name();
    const absl::string_view bytes = input.substr(record.offset - base, record.size);
    const bool has_body = record.spec != nullptr && record.spec->body != format::BodyKind::kNone;
    if (has_body) {
      if (record.body_offset + record.body.size() != record.offset + record.size) {
        Fail("a body does not end its record");
      }
      CheckRecords(record.body, record.body_offset, format::BodyScope(record.spec->body),
                   depth + 1);
    }
    // Re-encoding: a record with minimal varints encodes back to the same bytes.
    std::string encoded;
    const absl::Status status =
        format::AppendRecord(&encoded, static_cast<format::EventType>(record.type), record.Args(),
                             record.data, record.frames);
    const size_t header_size = record.size - record.body.size();
    if (format::RecordSize(static_cast<format::EventType>(record.type), record.Args(), record.data,
                           record.frames) != header_size) {
      continue;  // a non-minimal varint somewhere: the encoder writes fewer bytes
    }
    if (!status.ok()) Fail("AppendRecord refuses a record the decoder accepted");
    if (encoded != bytes.substr(0, header_size)) Fail("a decoded record re-encodes differently");
  }
}

// Dumps `input` read in `chunk`-byte pieces; returns the lines (written to a memory file,
// whatever the dumper flushes) and the error.
std::pair<std::string, std::string> Dump(absl::string_view input, size_t chunk) {
  const int fd = memfd_create("dump", MFD_CLOEXEC);
  if (fd < 0) Fail("memfd_create failed");
  absl::StatusOr<std::unique_ptr<tracewire::tools::OutputFile>> out =
      tracewire::tools::OutputFile::Open(absl::StrCat("/proc/self/fd/", fd));
  if (!out.ok()) Fail("cannot open the memory file");
  absl::string_view rest = input;
  std::unique_ptr<tracewire::reader::ByteSource> source =
      tracewire::reader::ChunkSource([&rest, chunk]() -> absl::StatusOr<absl::string_view> {
        const absl::string_view piece = rest.substr(0, chunk);
        rest.remove_prefix(piece.size());
        return piece;
      });
  const absl::Status status = tracewire::tools::DumpTrace(source.get(), out->get());
  if (!(*out)->Close().ok()) Fail("cannot write the memory file");
  std::string text;
  char buffer[4096];
  for (off_t offset = 0;;) {
    const ssize_t n = pread(fd, buffer, sizeof(buffer), offset);
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
    offset += n;
  }
  close(fd);
  return {text, std::string(status.message())};
}

void CheckDump(absl::string_view input) {
  const std::pair<std::string, std::string> whole = Dump(input, input.size() + 1);
  const std::pair<std::string, std::string> pieces = Dump(input, 64);
  if (whole != pieces) Fail("the dump depends on how the input is read");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CheckVarints(data, size);
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  for (format::Scope scope :
       {format::Scope::kFrame, format::Scope::kEventBody, format::Scope::kStringBody,
        format::Scope::kStackBody, format::Scope::kSiteBody}) {
    CheckRecords(input, 0, scope, 0);
  }
  // After a file header, as a trace file starts.
  if (size >= format::kFileHeaderSize) {
    CheckRecords(input.substr(format::kFileHeaderSize), format::kFileHeaderSize,
                 format::Scope::kFrame, 0);
  }
  CheckDump(input);
  return 0;
}
