// The `tracewire` command: decode, validate, dump, stats and import traces, and listen for
// traced processes (docs/cli.md).
// Flags are absl flags, parsed per subcommand by tools/command_line.h.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/string_view.h"
#include "tools/command_line.h"
#include "tools/decode.h"
#include "tools/dump.h"
#include "tools/exit_codes.h"
#include "tools/import.h"
#include "tools/listen.h"
#include "tools/stats.h"
#include "tools/usage.h"
#include "tools/validate.h"

ABSL_FLAG(std::string, format, "event",
          "decode: output format (event, perf, normal, chrome, otlp)");
ABSL_FLAG(bool, follow, false, "decode: follow a growing FILE until SIGINT/SIGTERM");
ABSL_FLAG(std::string, out, "", "listen: directory of the collected traces");
ABSL_FLAG(bool, brief, false, "decode: brief mode (no time and file:line prefixes)");
ABSL_FLAG(int, nesting, 2, "decode: EVENT nesting limit for regions and data");
ABSL_FLAG(int, evt, 4, "decode: EVENT format version written in version events (3 or 4)");
ABSL_FLAG(bool, salvage, false, "decode: skip damaged generations and report the loss");
ABSL_FLAG(std::string, o, "", "decode, import: output file (- for stdout)");
ABSL_FLAG(int, top, 10, "stats: regions listed in each ranking");
ABSL_FLAG(std::string, from, "", "import: input format (trace2-event)");
ABSL_FLAG(int64_t, utc_offset, 0, "import: local time minus UTC in seconds");
ABSL_FLAG(bool, compress, false, "import: zstd-compress every generation");

namespace tracewire::tools {
namespace {

// Prints a usage error with the command's synopsis; returns exit code 2.
int UsageError(absl::string_view command, absl::string_view message) {
  std::fprintf(stderr, "tracewire %s: %s\n%s", std::string(command).c_str(),
               std::string(message).c_str(), CommandSynopsis(command).c_str());
  return kExitUsage;
}

// Checks that exactly `count` positional arguments were given.
bool Positional(const CommandLine& line, size_t count) { return line.positional.size() == count; }

int RunDump(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("dump", "expects one trace file");
  const std::string& path = line.positional[0];
  std::ostringstream buffer;
  if (path == "-") {
    buffer << std::cin.rdbuf();
  } else {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "tracewire dump: %s: cannot open\n", path.c_str());
      return kExitUsage;
    }
    buffer << file.rdbuf();
  }
  const absl::Status status = DumpTrace(buffer.str(), std::cout);
  std::cout.flush();
  if (!status.ok()) {
    std::fprintf(stderr, "tracewire dump: %s\n", std::string(status.message()).c_str());
    return kExitInvalid;
  }
  return kExitOk;
}

int RunDecode(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("decode", "expects one FILE, DIR or -");
  DecodeOptions options;
  options.input = line.positional[0];
  options.output = absl::GetFlag(FLAGS_o);
  options.format = absl::GetFlag(FLAGS_format);
  // The format name is checked by targets::MakeFormatter (so formats it gains appear here).
  options.formatter.brief = absl::GetFlag(FLAGS_brief);
  options.formatter.event_nesting = absl::GetFlag(FLAGS_nesting);
  if (options.formatter.event_nesting < 1) return UsageError("decode", "--nesting must be >= 1");
  options.formatter.event_version = absl::GetFlag(FLAGS_evt);
  if (options.formatter.event_version != 3 && options.formatter.event_version != 4) {
    return UsageError("decode", "--evt must be 3 or 4");
  }
  options.salvage = absl::GetFlag(FLAGS_salvage);
  options.follow = absl::GetFlag(FLAGS_follow);
  return Decode(options);
}

int RunStats(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("stats", "expects one FILE, DIR or -");
  const int top = absl::GetFlag(FLAGS_top);
  if (top < 0) return UsageError("stats", "--top must be >= 0");
  return Stats(line.positional[0], static_cast<size_t>(top));
}

int RunImport(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("import", "expects one input file or -");
  if (absl::GetFlag(FLAGS_from) != "trace2-event") {
    return UsageError("import", "--from=trace2-event is required (the only input format)");
  }
  if (!line.Has("o")) return UsageError("import", "-o OUT is required");
  ImportOptions options;
  options.utc_offset_sec = absl::GetFlag(FLAGS_utc_offset);
  options.compress = absl::GetFlag(FLAGS_compress);
  return Import(line.positional[0], absl::GetFlag(FLAGS_o), options);
}

int RunListen(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("listen", "expects one af_unix:PATH address");
  if (absl::GetFlag(FLAGS_out).empty()) return UsageError("listen", "--out DIR is required");
  return Listen(line.positional[0], absl::GetFlag(FLAGS_out));
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(GlobalUsage().c_str(), stderr);
    return kExitUsage;
  }
  const std::string& command = args[0];
  if (command == "help" || command == "--help" || command == "-help" || command == "-h") {
    if (command == "help" && args.size() > 1) {
      if (args.size() > 2) return UsageError("help", "expects at most one command");
      const bool self = args[1] == "--help" || args[1] == "-help" || args[1] == "-h";
      const std::optional<std::string> usage = CommandUsage(self ? "help" : args[1]);
      if (!usage.has_value()) {
        std::fprintf(stderr, "tracewire: unknown command '%s'\n%s", args[1].c_str(),
                     GlobalUsage().c_str());
        return kExitUsage;
      }
      std::fputs(usage->c_str(), stdout);
      return kExitOk;
    }
    std::fputs(GlobalUsage().c_str(), stdout);
    return kExitOk;
  }

  struct Command {
    absl::string_view name;
    std::vector<absl::string_view> flags;
    int (*run)(const CommandLine&);
  };
  static const Command kCommands[] = {
      {"decode", {"format", "brief", "nesting", "evt", "salvage", "follow", "o"}, RunDecode},
      {"validate",
       {},
       [](const CommandLine& line) {
         if (!Positional(line, 1)) return UsageError("validate", "expects one FILE, DIR or -");
         return Validate(line.positional[0]);
       }},
      {"dump", {}, RunDump},
      {"stats", {"top"}, RunStats},
      {"import", {"from", "utc_offset", "compress", "o"}, RunImport},
      {"listen", {"out"}, RunListen},
  };
  for (const Command& c : kCommands) {
    if (c.name != command) continue;
    absl::StatusOr<CommandLine> line =
        ParseCommandLine(absl::MakeConstSpan(args).subspan(1), c.flags);
    if (!line.ok()) return UsageError(command, line.status().message());
    if (line->help) {
      std::fputs(CommandUsage(command)->c_str(), stdout);
      return kExitOk;
    }
    return c.run(*line);
  }
  std::fprintf(stderr, "tracewire: unknown command '%s'\n%s", command.c_str(),
               GlobalUsage().c_str());
  return kExitUsage;
}

}  // namespace
}  // namespace tracewire::tools

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return tracewire::tools::Main(args);
}
