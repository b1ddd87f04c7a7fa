#include "tools/commands/dump_command.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/cli/trace_input.h"
#include "tools/cli/usage.h"
#include "tools/commands/dump.h"

namespace tracewire::tools {
namespace {

// The help of `tracewire dump`.
constexpr char kHelp[] =
    "usage: tracewire dump FILE|DIR|-\n"
    "\n"
    "Lists every frame and record of a trace, one per line, with its byte offset and\n"
    "its arguments by name, driven only by the format's event table (no validation\n"
    "beyond framing). Compressed generations are listed decompressed. After each\n"
    "generation's end come its stacks, symbolized: function, source file and line, and\n"
    "module, as far as the trace and the modules' files on this machine tell. A DIR's\n"
    "trace files are listed one after the other, each under a line \"== FILE\"; a DIR\n"
    "with no trace file is an error.\n"
    "\n"
    "Exit codes: 0 success; 1 malformed trace (everything before it is listed);\n"
    "2 usage or I/O error; 4 files of DIR that could not be listed to their end (each\n"
    "named on stderr; the others are listed).\n";

// Dumps one trace file ("-" is stdin) to `out`, streaming; returns the exit code.
int DumpFile(const std::string& path, OutputFile* out) {
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> source = reader::OpenFileSource(path);
  if (!source.ok()) {
    std::fprintf(stderr, "tracewire dump: %s\n", std::string(source.status().message()).c_str());
    return kExitUsage;
  }
  if (const absl::Status status = DumpTrace(source->get(), out); !status.ok()) {
    std::fprintf(stderr, "tracewire dump: %s: %s\n", path.c_str(),
                 std::string(status.message()).c_str());
    return reader::IsTraceError(status) ? kExitInvalid : kExitUsage;
  }
  return kExitOk;
}

int RunDumpCommand(const Command& command, const CommandLine& line) {
  if (line.positional.size() != 1) return UsageError(command, "expects one FILE, DIR or -");
  absl::StatusOr<std::vector<std::string>> files = TraceFilesOf(line.positional[0]);
  if (!files.ok()) {
    std::fprintf(stderr, "tracewire dump: %s\n", std::string(files.status().message()).c_str());
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> out = OutputFile::Open("", *files);
  if (!out.ok()) {
    std::fprintf(stderr, "tracewire dump: %s\n", std::string(out.status().message()).c_str());
    return kExitUsage;
  }
  const bool from_directory = files->front() != line.positional[0];
  int code = kExitOk;
  size_t skipped = 0;
  for (const std::string& path : *files) {
    // A directory's files are dumped one after the other, each under its name; one that
    // cannot be read to its end (named on stderr) does not stop the others.
    if (from_directory) absl::StrAppend((*out)->buffer(), "== ", path, "\n");
    code = DumpFile(path, out->get());
    if (code == kExitOk) continue;
    if (!from_directory) break;
    ++skipped;
    code = kExitOk;
  }
  if (const absl::Status closed = (*out)->Close(); !closed.ok()) {
    std::fprintf(stderr, "tracewire dump: %s\n", std::string(closed.message()).c_str());
    return kExitUsage;
  }
  if (skipped != 0) {
    std::fprintf(stderr, "tracewire dump: %zu of %zu files could not be read; the others were read\n",
                 skipped, files->size());
    return kExitSkipped;
  }
  return code;
}

}  // namespace

const Command& DumpCommand() {
  static const Command* const command = new Command{
      .name = "dump",
      .summary = "list every frame and record of a trace with byte offsets",
      .help = kHelp,
      .run = RunDumpCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
