// A main() for fuzz targets built without libFuzzer: runs each input file (or every file of
// each directory) named on the command line through LLVMFuzzerTestOneInput once, so a
// crash input reproduces under gcc and its sanitizers too:
//   bazel run --config=asan //tests/fuzz:reader_fuzzer -- /abs/path/crash-1234
#include <cstdio>
#include <string>

#include "tests/fuzz/fuzz_input_files.h"

int main(int argc, char** argv) {
  int inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer flags: ignored here
    absl::StatusOr<std::vector<std::string>> files = tracewire::fuzz::InputFiles(arg);
    if (!files.ok()) {
      std::fprintf(stderr, "%s\n", std::string(files.status().message()).c_str());
      return 2;
    }
    for (const std::string& file : *files) {
      absl::StatusOr<std::string> input = tracewire::fuzz::ReadInput(file);
      if (!input.ok()) {
        std::fprintf(stderr, "%s\n", std::string(input.status().message()).c_str());
        return 2;
      }
      std::fprintf(stderr, "running %s (%zu bytes)\n", file.c_str(), input->size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const unsigned char*>(input->data()), input->size());
      ++inputs;
    }
  }
  std::fprintf(stderr, "%d inputs ran without a crash\n", inputs);
  return 0;
}
