#include "tools/commands/import_command.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "reader/byte_source.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/usage.h"
#include "tools/commands/import.h"
#include "tools/commands/import_go.h"
#include "tools/commands/shared_flags.h"
#include "tools/go_import/go_trace_source.h"

ABSL_FLAG(std::string, from, "", "import: input format (trace2-event, go)");
ABSL_DECLARE_FLAG(bool, salvage);
ABSL_FLAG(int64_t, utc_offset, 0, "import: local time minus UTC in seconds");
ABSL_FLAG(bool, compress, false, "import: zstd-compress every generation");

namespace tracewire::tools {
namespace {

// The help of `tracewire import`.
constexpr char kHelp[] =
    "usage: tracewire import [--from=trace2-event|go] [--utc_offset=SECONDS] [--compress]\n"
    "                        [--salvage] IN|- -o OUT\n"
    "\n"
    "Converts the output of GIT_TRACE2_EVENT (non-brief, with every region: set\n"
    "GIT_TRACE2_EVENT_NESTING above the deepest nesting) into a tracewire trace.\n"
    "Several processes may be interleaved in IN; their generations keep the order of\n"
    "the lines. `tracewire decode --nesting=N --evt=E OUT` reproduces every line with\n"
    "the same keys, order and values, and times within 2 microseconds.\n"
    "\n"
    "With --from=go, IN is a Go execution trace (runtime/trace, Go 1.22 or 1.23):\n"
    "goroutines become threads, user tasks tasks, user regions regions, logs data,\n"
    "blocking and system calls regions, GC and stop-the-world regions on runtime\n"
    "threads, heap size and goal gauges, CPU samples samples. A file that starts with\n"
    "Go's header is read as a Go trace without the flag.\n"
    "\n"
    "Flags:\n"
    "  --from=FORMAT       input format: trace2-event, or go (a Go execution trace);\n"
    "                      default: go if IN starts with Go's header, else\n"
    "                      trace2-event\n"
    "  --utc_offset=SECS   local time minus UTC for the NORMAL and PERF formats\n"
    "                      (default 0: the EVENT stream only has UTC)\n"
    "  --compress          write every generation zstd-compressed\n"
    "  --salvage           go: keep the intact generations of a damaged trace (exit 1)\n"
    "  -o OUT              the trace file to write (required; - for stdout)\n"
    "\n"
    "Exit codes: 0 success; 1 invalid input (the message names the line); 2 usage or\n"
    "I/O error.\n";

int RunImportCommand(const Command& command, const CommandLine& line) {
  if (line.positional.size() != 1) return UsageError(command, "expects one input file or -");
  std::string from = absl::GetFlag(FLAGS_from);
  const std::string& input = line.positional[0];
  if (from != "" && from != "trace2-event" && from != "go") {
    return UsageError(command, "--from must be trace2-event or go");
  }
  if (!line.Has("o")) return UsageError(command, "-o OUT is required");
  if (from.empty() && input == "-") {
    // stdin is read once: its first bytes tell the format, and are read again from there.
    absl::StatusOr<std::unique_ptr<reader::ByteSource>> in = reader::OpenFileSource(input);
    bool go = false;
    if (in.ok()) in = go_trace::PeekGoTrace(std::move(*in), &go);
    if (!in.ok()) {
      std::fprintf(stderr, "tracewire import: %s\n", std::string(in.status().message()).c_str());
      return kExitUsage;
    }
    if (go) {
      return ImportGo(std::move(*in), input, absl::GetFlag(FLAGS_o), absl::GetFlag(FLAGS_compress),
                      absl::GetFlag(FLAGS_salvage));
    }
    ImportOptions options;
    options.utc_offset_sec = absl::GetFlag(FLAGS_utc_offset);
    options.compress = absl::GetFlag(FLAGS_compress);
    return Import(std::move(*in), input, absl::GetFlag(FLAGS_o), options);
  }
  if (from.empty()) from = IsGoTraceInput(input) ? "go" : "trace2-event";
  if (from == "go") {
    return ImportGo(line.positional[0], absl::GetFlag(FLAGS_o), absl::GetFlag(FLAGS_compress),
                    absl::GetFlag(FLAGS_salvage));
  }
  ImportOptions options;
  options.utc_offset_sec = absl::GetFlag(FLAGS_utc_offset);
  options.compress = absl::GetFlag(FLAGS_compress);
  return Import(line.positional[0], absl::GetFlag(FLAGS_o), options);
}

}  // namespace

const Command& ImportCommand() {
  static const Command* const command = new Command{
      .name = "import",
      .summary = "convert a git Trace2 EVENT stream or a Go execution trace into a tracewire trace",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_from), FlagOf(FLAGS_utc_offset), FlagOf(FLAGS_compress),
                FlagOf(FLAGS_salvage), FlagOf(FLAGS_o)},
      .run = RunImportCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
