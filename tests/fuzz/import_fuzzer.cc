// Fuzz target: `tracewire import --from=trace2-event`, the git Trace2 EVENT importer.
//
// The input is an EVENT stream (JSON lines). It is imported twice: in one window (as a
// short stream is), and compressed in windows of two lines (the streaming path a long
// stream takes). Beyond "no crash, no sanitizer report", it checks that each import either
// refuses the stream with InvalidArgument (naming a line) or produces a trace that the
// reader accepts whole (an accepted import must validate), and that the window size does
// not change whether the stream is accepted.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tools/trace2_import/trace2_import.h"

namespace {

[[noreturn]] void Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "import_fuzzer: %s: %s\n", what, status.ToString().c_str());
  std::abort();
}

// Reads `trace` strictly; returns the first error, OK if it validates.
absl::Status Validate(const std::string& trace) {
  tracewire::reader::Reader reader(tracewire::reader::MemorySource(trace, "imported"));
  while (true) {
    absl::StatusOr<const tracewire::reader::Event*> event = reader.Next();
    if (!event.ok()) return event.status();
    if (*event == nullptr) return absl::OkStatus();
  }
}

// Imports `text`; true if accepted.
bool Import(absl::string_view text, bool compress, size_t window_lines) {
  tracewire::tools::ImportOptions options;
  options.compress = compress;
  options.window_lines = window_lines;
  absl::StatusOr<std::string> trace = tracewire::tools::ImportTrace2Event(text, options);
  if (!trace.ok()) {
    if (!absl::IsInvalidArgument(trace.status())) {
      Fail("refused other than as invalid", trace.status());
    }
    return false;
  }
  if (absl::Status status = Validate(*trace); !status.ok()) {
    Fail("an accepted import does not validate", status);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  const bool whole = Import(text, /*compress=*/false, /*window_lines=*/size + 1);
  const bool windows = Import(text, /*compress=*/true, /*window_lines=*/2);
  if (whole != windows) {
    Fail("the window size changes whether the stream is accepted", absl::OkStatus());
  }
  return 0;
}
