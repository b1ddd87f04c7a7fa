// The input files of a fuzz target's corpus directories, for the standalone runner and the
// replay test (libFuzzer itself reads them under --config=fuzz).
#ifndef TRACEWIRE_TESTS_FUZZ_FUZZ_INPUT_FILES_H_
#define TRACEWIRE_TESTS_FUZZ_FUZZ_INPUT_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tracewire::fuzz {

// `path` itself if it is a file; every regular file below it, in name order, if it is a
// directory (names starting with '.' are skipped). A missing directory holds no file.
absl::StatusOr<std::vector<std::string>> InputFiles(const std::string& path);

// The whole content of `path`.
absl::StatusOr<std::string> ReadInput(const std::string& path);

}  // namespace tracewire::fuzz

// The fuzz target every fuzzer defines.
extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size);

#endif  // TRACEWIRE_TESTS_FUZZ_FUZZ_INPUT_FILES_H_
