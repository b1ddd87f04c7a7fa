#include "tools/commands/import_go.h"

#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/go_import/go_import.h"
#include "tools/go_import/go_trace_source.h"

namespace tracewire::tools {

bool IsGoTraceInput(const std::string& input) {
  return input != "-" && go_trace::IsGoTraceFile(input);
}

int ImportGo(const std::string& input, const std::string& output, bool compress, bool salvage) {
  std::string bytes;
  if (input == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    bytes = buffer.str();
  } else {
    FILE* file = std::fopen(input.c_str(), "rb");
    if (file == nullptr) {
      std::fprintf(stderr, "tracewire import: %s: cannot open\n", input.c_str());
      return kExitUsage;
    }
    char chunk[1 << 16];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) bytes.append(chunk, n);
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    if (failed) {
      std::fprintf(stderr, "tracewire import: %s: read error\n", input.c_str());
      return kExitUsage;
    }
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(output, {input});
  if (!out.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(out.status().message()).c_str());
    return kExitUsage;
  }
  go_trace::GoImportOptions options;
  options.compress = compress;
  options.salvage = salvage;
  absl::StatusOr<go_trace::GoImportResult> result =
      go_trace::ImportGoTrace(std::move(bytes), options);
  if (!result.ok()) {
    (*out)->Discard();
    std::fprintf(stderr, "tracewire import: %s: %s\n", input.c_str(),
                 std::string(result.status().message()).c_str());
    return kExitInvalid;
  }
  for (const std::string& damage : result->damage) {
    std::fprintf(stderr, "tracewire import: %s: lost: %s\n", input.c_str(), damage.c_str());
  }
  (*out)->buffer()->append(result->trace);
  if (absl::Status s = (*out)->Close(); !s.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(s.message()).c_str());
    return kExitUsage;
  }
  return result->damage.empty() ? kExitOk : kExitInvalid;
}

}  // namespace tracewire::tools
