// The `tracewire` command: decode, validate, dump, stats and import traces, listen for
// traced processes, run a command traced, and write HTML reports (docs/cli.md).
// Flags are absl flags, parsed per subcommand by tools/cli/command_line.h.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "format/constants.h"
#include "reader/byte_source.h"
#include "reader/reader.h"
#include "tools/cli/command_line.h"
#include "tools/commands/decode.h"
#include "tools/commands/dump.h"
#include "tools/cli/exit_codes.h"
#include "tools/commands/import.h"
#include "tools/commands/listen.h"
#include "tools/cli/output_file.h"
#include "tools/commands/report.h"
#include "tools/commands/run.h"
#include "tools/commands/stats.h"
#include "tools/cli/trace_input.h"
#include "tools/cli/usage.h"
#include "tools/commands/validate.h"
#include "tools/version.h"

ABSL_FLAG(std::string, format, "event",
          "decode: output format (event, perf, normal, chrome, otlp); run: perf, normal, event "
          "(default perf)");
ABSL_FLAG(bool, follow, false, "decode: follow a growing FILE until SIGINT/SIGTERM");
ABSL_FLAG(std::string, out, "",
          "listen: directory of the collected traces; run: keep the traces in this directory");
ABSL_FLAG(bool, brief, false, "decode, run: brief mode (no time and file:line prefixes)");
ABSL_FLAG(bool, git_exact, false,
          "decode, run: git's own file:line on the events git writes from its own code");
ABSL_FLAG(int, nesting, 2, "decode, run: EVENT nesting limit for regions and data");
ABSL_FLAG(int, evt, 4, "decode: EVENT format version, 1 to 4 (git's \"evt\")");
ABSL_FLAG(bool, stacks, false,
          "decode: EVENT: add the symbolized \"stack\" of events that have one");
ABSL_FLAG(bool, salvage, false, "decode: skip damaged generations and report the loss");
ABSL_FLAG(std::string, o, "", "decode, import, run, report: output file (- for stdout)");
ABSL_FLAG(int, top, 10, "stats: regions listed in each ranking");
ABSL_FLAG(std::string, from, "", "import: input format (trace2-event)");
ABSL_FLAG(int64_t, utc_offset, 0, "import: local time minus UTC in seconds");
ABSL_FLAG(bool, compress, false, "import: zstd-compress every generation");
ABSL_FLAG(std::string, otlp_endpoint, "",
          "decode, listen: send OTLP/JSON to this OTLP/HTTP base URL (POST <url>/v1/traces)");
ABSL_FLAG(std::string, otlp_header, "",
          "decode, listen: NAME=VALUE header of every OTLP request (repeatable)");
ABSL_FLAG(absl::Duration, otlp_timeout, absl::Seconds(10),
          "decode, listen: time limit of one OTLP request attempt");
ABSL_FLAG(absl::Duration, otlp_retry_time, absl::Seconds(60),
          "decode, listen: time limit of one OTLP request with its retries");
ABSL_FLAG(int, otlp_queue, 1000, "listen: processes waiting to be forwarded, at most");
ABSL_FLAG(std::string, socket_mode, "0600", "listen: permissions of the socket file (octal)");
ABSL_FLAG(absl::Duration, idle_timeout, absl::Minutes(5),
          "listen: close a connection silent for this long (0: never)");
ABSL_FLAG(std::string, max_memory, "1G", "listen: memory for unfinished data, all connections");
ABSL_FLAG(std::string, max_connection_memory, "256M",
          "listen: memory for unfinished data of one connection (one generation)");
ABSL_FLAG(int, max_connections, 4096, "listen: connections (dgram: senders) at once");
ABSL_FLAG(int, jobs, 0,
          "decode, validate, stats: threads decoding generations (0: one per core, 1: serial)");

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

// The --otlp-* flags as exporter options; an empty endpoint means no export.
absl::StatusOr<OtlpHttpOptions> OtlpFlags(const CommandLine& line) {
  OtlpHttpOptions options;
  options.endpoint = absl::GetFlag(FLAGS_otlp_endpoint);
  options.timeout = absl::GetFlag(FLAGS_otlp_timeout);
  options.retry_time = absl::GetFlag(FLAGS_otlp_retry_time);
  for (const std::string& spec : line.All("otlp_header")) {
    absl::StatusOr<std::pair<std::string, std::string>> header = ParseOtlpHeader(spec);
    if (!header.ok()) return header.status();
    options.headers.push_back(*std::move(header));
  }
  if (options.endpoint.empty() &&
      (line.Has("otlp_header") || line.Has("otlp_timeout") || line.Has("otlp_retry_time"))) {
    return absl::InvalidArgumentError("the --otlp-* flags need --otlp-endpoint");
  }
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--otlp-timeout must be positive");
  }
  if (options.retry_time < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--otlp-retry-time must not be negative");
  }
  return options;
}

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

int RunDump(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("dump", "expects one FILE, DIR or -");
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
  for (const std::string& path : *files) {
    // A directory's files are dumped one after the other, each under its name.
    if (from_directory) absl::StrAppend((*out)->buffer(), "== ", path, "\n");
    code = DumpFile(path, out->get());
    if (code != kExitOk) break;
  }
  if (const absl::Status closed = (*out)->Close(); !closed.ok()) {
    std::fprintf(stderr, "tracewire dump: %s\n", std::string(closed.message()).c_str());
    return kExitUsage;
  }
  return code;
}

int RunDecode(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("decode", "expects one FILE, DIR or -");
  DecodeOptions options;
  options.input = line.positional[0];
  options.output = absl::GetFlag(FLAGS_o);
  options.format = absl::GetFlag(FLAGS_format);
  // The format name is checked by targets::MakeFormatter (so formats it gains appear here).
  options.formatter.brief = absl::GetFlag(FLAGS_brief);
  options.formatter.git_exact = absl::GetFlag(FLAGS_git_exact);
  options.formatter.event_nesting = absl::GetFlag(FLAGS_nesting);
  if (options.formatter.event_nesting < 1) return UsageError("decode", "--nesting must be >= 1");
  options.formatter.event_version = absl::GetFlag(FLAGS_evt);
  if (options.formatter.event_version < targets::kMinEventVersion ||
      options.formatter.event_version > targets::kMaxEventVersion) {
    return UsageError("decode", "--evt must be 1, 2, 3 or 4");
  }
  options.formatter.event_stacks = absl::GetFlag(FLAGS_stacks);
  options.salvage = absl::GetFlag(FLAGS_salvage);
  options.follow = absl::GetFlag(FLAGS_follow);
  absl::StatusOr<OtlpHttpOptions> otlp = OtlpFlags(line);
  if (!otlp.ok()) return UsageError("decode", otlp.status().message());
  options.otlp = *std::move(otlp);
  if (!options.otlp.endpoint.empty()) {
    if (!line.Has("format")) options.format = "otlp";
    if (options.format != "otlp")
      return UsageError("decode", "--otlp-endpoint needs --format=otlp");
  }
  options.jobs = absl::GetFlag(FLAGS_jobs);
  if (options.jobs < 0) return UsageError("decode", "--jobs must be >= 0");
  return Decode(options);
}

int RunStats(const CommandLine& line) {
  if (!Positional(line, 1)) return UsageError("stats", "expects one FILE, DIR or -");
  const int top = absl::GetFlag(FLAGS_top);
  if (top < 0) return UsageError("stats", "--top must be >= 0");
  const int jobs = absl::GetFlag(FLAGS_jobs);
  if (jobs < 0) return UsageError("stats", "--jobs must be >= 0");
  return Stats(line.positional[0], static_cast<size_t>(top), jobs);
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
  ListenOptions options;
  options.address = line.positional[0];
  CollectorOptions& collector = options.collector;
  collector.out_dir = absl::GetFlag(FLAGS_out);
  const std::string mode = absl::GetFlag(FLAGS_socket_mode);
  if (mode.empty() || mode.size() > 4 || mode.find_first_not_of("01234567") != std::string::npos) {
    return UsageError("listen", "--socket-mode must be octal permissions, e.g. 0600 or 0660");
  }
  collector.socket_mode = static_cast<mode_t>(std::stoul(mode, nullptr, 8) & 0777);
  collector.idle_timeout = absl::GetFlag(FLAGS_idle_timeout);
  if (collector.idle_timeout < absl::ZeroDuration()) {
    return UsageError("listen", "--idle-timeout must not be negative");
  }
  absl::StatusOr<size_t> total = ParseByteSize(absl::GetFlag(FLAGS_max_memory));
  absl::StatusOr<size_t> per_connection = ParseByteSize(absl::GetFlag(FLAGS_max_connection_memory));
  if (!total.ok()) return UsageError("listen", total.status().message());
  if (!per_connection.ok()) return UsageError("listen", per_connection.status().message());
  collector.max_total_buffered = *total;
  collector.max_generation_size = std::min(*per_connection, format::kMaxGenerationSize);
  if (absl::GetFlag(FLAGS_max_connections) < 1) {
    return UsageError("listen", "--max-connections must be >= 1");
  }
  collector.max_connections = static_cast<size_t>(absl::GetFlag(FLAGS_max_connections));
  absl::StatusOr<OtlpHttpOptions> otlp = OtlpFlags(line);
  if (!otlp.ok()) return UsageError("listen", otlp.status().message());
  options.otlp = *std::move(otlp);
  if (absl::GetFlag(FLAGS_otlp_queue) < 1) return UsageError("listen", "--otlp-queue must be >= 1");
  if (line.Has("otlp_queue") && options.otlp.endpoint.empty()) {
    return UsageError("listen", "the --otlp-* flags need --otlp-endpoint");
  }
  options.otlp_queue = static_cast<size_t>(absl::GetFlag(FLAGS_otlp_queue));
  return Listen(options);
}

// `run` takes its flags before COMMAND only: COMMAND's own arguments may look like flags.
int RunRun(absl::Span<const std::string> args) {
  static constexpr absl::string_view kFlags[] = {"format", "o", "out", "brief", "nesting"};
  static constexpr absl::string_view kValueFlags[] = {"format", "o", "out", "nesting"};
  const RunArguments split = SplitRunArguments(args, kValueFlags);
  absl::StatusOr<CommandLine> line = ParseCommandLine(split.flags, kFlags);
  if (!line.ok()) return UsageError("run", line.status().message());
  if (line->help) {
    std::fputs(CommandUsage("run")->c_str(), stdout);
    return kExitOk;
  }
  if (split.command.empty()) return UsageError("run", "expects a COMMAND to run");
  RunOptions options;
  options.format = line->Has("format") ? absl::GetFlag(FLAGS_format) : "perf";
  if (options.format != "perf" && options.format != "normal" && options.format != "event") {
    return UsageError("run", "--format must be perf, normal or event");
  }
  options.formatter.brief = absl::GetFlag(FLAGS_brief);
  options.formatter.event_nesting = absl::GetFlag(FLAGS_nesting);
  if (options.formatter.event_nesting < 1) return UsageError("run", "--nesting must be >= 1");
  options.output = absl::GetFlag(FLAGS_o);
  options.trace_dir = absl::GetFlag(FLAGS_out);
  options.command = split.command;
  return Run(options);
}

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fputs(GlobalUsage().c_str(), stderr);
    return kExitUsage;
  }
  const std::string& command = args[0];
  if (command == "--version" || command == "version") {
    if (args.size() > 1) return UsageError("version", "takes no arguments");
    std::printf("tracewire version %s (trace format version %u)\n", kTracewireVersion,
                static_cast<unsigned>(format::kFormatVersion));
    return kExitOk;
  }
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

  if (command == "run") return RunRun(absl::MakeConstSpan(args).subspan(1));

  struct Command {
    absl::string_view name;
    std::vector<absl::string_view> flags;
    int (*run)(const CommandLine&);
  };
  static const Command kCommands[] = {
      {"decode",
       {"format", "brief", "git_exact", "nesting", "evt", "stacks", "salvage", "follow", "o",
        "jobs", "otlp_endpoint", "otlp_header", "otlp_timeout", "otlp_retry_time"},
       RunDecode},
      {"validate",
       {"jobs"},
       [](const CommandLine& line) {
         if (!Positional(line, 1)) return UsageError("validate", "expects one FILE, DIR or -");
         const int jobs = absl::GetFlag(FLAGS_jobs);
         if (jobs < 0) return UsageError("validate", "--jobs must be >= 0");
         return Validate(line.positional[0], jobs);
       }},
      {"dump", {}, RunDump},
      {"stats", {"top", "jobs"}, RunStats},
      {"import", {"from", "utc_offset", "compress", "o"}, RunImport},
      {"listen",
       {"out", "socket_mode", "idle_timeout", "max_memory", "max_connection_memory",
        "max_connections", "otlp_endpoint", "otlp_header", "otlp_timeout", "otlp_retry_time",
        "otlp_queue"},
       RunListen},
      {"report",
       {"o"},
       [](const CommandLine& line) {
         if (!Positional(line, 1)) return UsageError("report", "expects one FILE, DIR or -");
         return Report(line.positional[0], absl::GetFlag(FLAGS_o));
       }},
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
