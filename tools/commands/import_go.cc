#include "tools/commands/import_go.h"

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/commands/import_outcome.h"
#include "tools/go_import/go_import.h"
#include "tools/go_import/go_trace_source.h"
#include "tools/trace2_import/imported_trace_check.h"

namespace tracewire::tools {

namespace {

// Exit code of a failed conversion: 1 for a fault of the input (not a Go trace, a version
// not read, damage) or of the conversion, 2 for an I/O error reading it.
int ConversionExit(const absl::Status& status) {
  return reader::IsTraceError(status) || absl::IsInvalidArgument(status) || absl::IsInternal(status)
             ? kExitInvalid
             : kExitUsage;
}

}  // namespace

bool IsGoTraceInput(const std::string& input) {
  return input != "-" && go_trace::IsGoTraceFile(input);
}

int ImportGo(const std::string& input, const std::string& output, bool compress, bool salvage) {
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> source = reader::OpenFileSource(input);
  if (!source.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(source.status().message()).c_str());
    return kExitUsage;
  }
  return ImportGo(std::move(*source), input, output, compress, salvage);
}

int ImportGo(std::unique_ptr<reader::ByteSource> source, const std::string& input,
             const std::string& output, bool compress, bool salvage) {
  go_trace::GoImportOptions options;
  options.compress = compress;
  options.salvage = salvage;
  absl::StatusOr<std::unique_ptr<go_trace::GoImporter>> importer =
      go_trace::GoImporter::Open(std::move(source), options);
  if (!importer.ok()) {
    std::fprintf(stderr, "tracewire import: %s: %s\n", input.c_str(),
                 std::string(importer.status().message()).c_str());
    return ConversionExit(importer.status());
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open(output, {input});
  if (!out.ok()) {
    std::fprintf(stderr, "tracewire import: %s\n", std::string(out.status().message()).c_str());
    return kExitUsage;
  }
  // The trace is converted a generation at a time as the check's reader pulls it; each
  // generation is written out (memory: one Go generation and its conversion, and the
  // reader's generation).
  absl::Status import_error;
  absl::Status output_error;
  std::string chunk;
  auto next_chunk = [&]() -> absl::StatusOr<absl::string_view> {
    chunk.clear();
    if (!import_error.ok() || !output_error.ok()) return absl::string_view();
    absl::StatusOr<bool> more = (*importer)->Next(&chunk);
    if (!more.ok()) {
      import_error = more.status();
      return absl::string_view();
    }
    (*out)->buffer()->append(chunk);
    if (absl::Status s = (*out)->MaybeFlush(); !s.ok()) {
      output_error = s;
      return absl::string_view();
    }
    return absl::string_view(chunk);
  };
  reader::Reader check(reader::ChunkSource(next_chunk, "imported Go trace"));
  const absl::Status check_error = ReadToEnd(&check);
  return FinishImport(input,
                      {.output_error = output_error,
                       .import_error = import_error,
                       .import_exit = ConversionExit(import_error),
                       .check_error = check_error,
                       .damage = (*importer)->damage()},
                      **out);
}

}  // namespace tracewire::tools
