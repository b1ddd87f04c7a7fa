#include "tools/import.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "tools/exit_codes.h"
#include "tools/output_file.h"
#include "tools/progress.h"

namespace tracewire::tools {

int Import(const std::string& input, const std::string& output, ImportOptions options) {
  std::ostringstream buffer;
  if (input == "-") {
    buffer << std::cin.rdbuf();
  } else {
    std::ifstream file(input, std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "tracewire import: %s: cannot open\n", input.c_str());
      return kExitUsage;
    }
    buffer << file.rdbuf();
    if (file.bad()) {
      std::fprintf(stderr, "tracewire import: %s: read error\n", input.c_str());
      return kExitUsage;
    }
  }
  const std::string text = buffer.str();
  Progress progress("import", "lines");
  options.progress = [&](uint64_t bytes, uint64_t lines) {
    progress.Report(bytes, text.size(), lines);
  };
  absl::StatusOr<std::string> trace = ImportTrace2Event(text, options);
  progress.Finish();
  if (!trace.ok()) {
    std::fprintf(stderr, "tracewire import: %s: %s\n", input.c_str(),
                 std::string(trace.status().message()).c_str());
    return kExitInvalid;
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(output);
  if (!out.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(out.status().message()).c_str());
    return kExitUsage;
  }
  (*out)->buffer()->swap(*trace);
  if (absl::Status s = (*out)->Close(); !s.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(s.message()).c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace tracewire::tools
