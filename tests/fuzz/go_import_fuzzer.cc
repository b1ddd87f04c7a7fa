// Fuzz target: the Go execution trace reader and importer (tools/go_import), as
// `tracewire import --from=go` and every command reading a Go trace run them.
//
// The input is a Go trace (seeds: small real traces of Go 1.22 and 1.23, their cuts). It
// is imported strictly and with salvage. Beyond "no crash, no sanitizer report", it checks
// that a refusal is never an internal error (a converted trace the reader rejects is a bug
// of the importer), that salvage accepts whatever has a valid header, and that a strict
// import that succeeds loses nothing under salvage.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "tools/go_import/go_import.h"

namespace {

[[noreturn]] void Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "go_import_fuzzer: %s: %s\n", what, status.ToString().c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  tracewire::go_trace::GoImportOptions options;
  absl::StatusOr<tracewire::go_trace::GoImportResult> strict =
      tracewire::go_trace::ImportGoTrace(bytes, options);
  if (!strict.ok() && absl::IsInternal(strict.status())) Fail("strict import", strict.status());
  options.salvage = true;
  absl::StatusOr<tracewire::go_trace::GoImportResult> salvaged =
      tracewire::go_trace::ImportGoTrace(bytes, options);
  if (!salvaged.ok()) {
    if (absl::IsInternal(salvaged.status())) Fail("salvage import", salvaged.status());
    // Only a header salvage cannot read may refuse the whole input.
    if (strict.ok()) Fail("salvage refused what a strict import accepted", salvaged.status());
    return 0;
  }
  if (strict.ok() && (salvaged->generations != strict->generations || !salvaged->damage.empty())) {
    Fail("salvage lost generations of a whole trace", absl::OkStatus());
  }
  return 0;
}
