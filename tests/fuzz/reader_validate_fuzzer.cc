// Fuzz target: the reader as `tracewire validate` and `tracewire stats` drive it — the fast
// half of the reader's fuzzing (reader_fuzzer.cc is the slow, differential half: salvage,
// every formatter, parallel decoding, trace directories).
//
// The input is a trace file, read through a MemorySource with no formatter and no parallel
// worker:
//   * strictly, delivering every event (what `validate` does), in 64-byte chunks (so every
//     refill path of the framing layer runs);
//   * strictly with ReaderOptions::count_only (what `stats` and the counting paths do):
//     an input of even size through Next() with the whole input in one chunk, one of odd
//     size through SkipEvents() in 64-byte chunks (two reads per input rather than three
//     make the target a third faster; mutations change sizes all the time, so both paths
//     see every kind of input).
// Beyond "no crash, no sanitizer report", it checks that the count_only read sees the same
// events as the full read (kind, wire type, generation, sid, thread, ticks; through
// SkipEvents, their number) and ends the same way (the same error message, or none).
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

// True if both reads ended the same way: the same error message, or none.
bool SameError(const ReadResult& a, const ReadResult& b) {
  return a.ok == b.ok && a.error == b.error;
}

// A strict read through Next(): full events or count_only, `chunk_size` bytes per refill.
ReadResult Read(absl::string_view trace, bool count_only, size_t chunk_size) {
  ReaderOptions options;
  options.count_only = count_only;
  options.chunk_size = chunk_size;
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
  const ReadResult strict = Read(trace, /*count_only=*/false, /*chunk_size=*/64);
  if (size % 2 == 0) {
    // The whole input in one refill (the inputs are at most 4 KiB): the framing layer's
    // other path, where every frame is already buffered.
    const ReadResult counted = Read(trace, /*count_only=*/true, /*chunk_size=*/4096);
    if (!SameError(counted, strict) || counted.events != strict.events ||
        counted.digest != strict.digest) {
      Fail("a count_only read differs from the strict read");
    }
  } else {
    const ReadResult skipped = SkipThrough(trace);
    if (!SameError(skipped, strict) || skipped.events != strict.events) {
      Fail("a count_only read through SkipEvents differs from the strict read");
    }
  }
  return 0;
}
