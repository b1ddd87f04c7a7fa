// Fuzz target: the reader as `tracewire validate` and `tracewire stats` drive it — the fast
// half of the reader's fuzzing (reader_fuzzer.cc is the slow, differential half: salvage,
// every formatter, parallel decoding, trace directories).
//
// The input is a trace file, read through a MemorySource in 64-byte chunks (so every refill
// path of the framing layer runs), with no formatter and no parallel worker:
//   * strictly, delivering every event (what `validate` does);
//   * strictly with ReaderOptions::count_only, through Next() and through SkipEvents()
//     (what `stats` and the counting paths do).
// Beyond "no crash, no sanitizer report", it checks that the count_only reads see the same
// events as the full read (kind, wire type, generation, sid, thread, ticks; through
// SkipEvents, their number) and end the same way (the same error, or none).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "reader/byte_source.h"
#include "reader/reader.h"

namespace {

using tracewire::reader::Event;
using tracewire::reader::MemorySource;
using tracewire::reader::Reader;
using tracewire::reader::ReaderOptions;

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "reader_validate_fuzzer: %s\n", what);
  std::abort();
}

struct ReadResult {
  bool ok = true;
  std::string error;  // the read's error message
  uint64_t events = 0;
  uint64_t digest = 0;  // of the fields count_only leaves set, event after event
};

// Folds `value` into `digest` (a 64-bit mix; the reads compare digests, not copies).
void Fold(uint64_t value, uint64_t* digest) {
  *digest = (*digest ^ value) * 0x100000001b3u;
  *digest ^= *digest >> 29;
}

void FoldCounted(const Event& e, uint64_t* digest) {
  Fold(static_cast<uint64_t>(e.kind) << 8 | e.wire_type, digest);
  Fold(e.gen, digest);
  Fold(e.thread_id, digest);
  Fold(e.ticks, digest);
  Fold(e.sid.size(), digest);
  for (char c : e.sid) Fold(static_cast<unsigned char>(c), digest);
}

// A strict read through Next(): full events or count_only.
ReadResult Read(absl::string_view trace, bool count_only) {
  ReaderOptions options;
  options.count_only = count_only;
  options.chunk_size = 64;
  Reader reader(MemorySource(trace, "fuzz"), options);
  ReadResult result;
  while (true) {
    absl::StatusOr<const Event*> event = reader.Next();
    if (!event.ok()) {
      result.ok = false;
      result.error = std::string(event.status().message());
      break;
    }
    if (*event == nullptr) break;
    ++result.events;
    FoldCounted(**event, &result.digest);
  }
  return result;
}

// The strict count_only read through SkipEvents(), five events at a time.
ReadResult SkipThrough(absl::string_view trace) {
  ReaderOptions options;
  options.count_only = true;
  options.chunk_size = 64;
  Reader reader(MemorySource(trace, "fuzz"), options);
  ReadResult result;
  while (true) {
    absl::string_view sid;
    absl::StatusOr<uint64_t> n = reader.SkipEvents(5, &sid);
    if (!n.ok()) {
      result.ok = false;
      result.error = std::string(n.status().message());
      break;
    }
    if (*n == 0) break;
    result.events += *n;
  }
  return result;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view trace(reinterpret_cast<const char*>(data), size);
  const ReadResult strict = Read(trace, /*count_only=*/false);
  const ReadResult counted = Read(trace, /*count_only=*/true);
  if (counted.ok != strict.ok || counted.error != strict.error || counted.events != strict.events ||
      counted.digest != strict.digest) {
    Fail("a count_only read differs from the strict read");
  }
  const ReadResult skipped = SkipThrough(trace);
  if (skipped.ok != strict.ok || skipped.error != strict.error || skipped.events != strict.events) {
    Fail("a count_only read through SkipEvents differs from the strict read");
  }
  return 0;
}
