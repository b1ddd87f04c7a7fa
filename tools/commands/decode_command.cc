#include "tools/commands/decode_command.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "reader/targets/output_formats.h"
#include "tools/cli/usage.h"
#include "tools/commands/decode.h"
#include "tools/commands/formatter_flags.h"
#include "tools/commands/otlp_flags.h"
#include "tools/commands/shared_flags.h"

ABSL_FLAG(bool, follow, false, "decode: follow a growing FILE until SIGINT/SIGTERM");
ABSL_FLAG(bool, salvage, false, "decode: skip damaged generations and report the loss");
ABSL_FLAG(std::string, since, "", "decode: drop the events before TIME (from the start, or UTC)");
ABSL_FLAG(std::string, until, "", "decode: drop the events after TIME (from the start, or UTC)");
ABSL_FLAG(std::string, sid, "", "decode: keep the processes whose sid matches PATTERN");
ABSL_FLAG(int64_t, pid, 0, "decode: keep the process with pid N, and its children");

namespace tracewire::tools {
namespace {

// The help of `tracewire decode`, with {formats} and {format_lines} filled in from the
// registry of output formats (Help()).
constexpr char kHelpTemplate[] =
    "usage: tracewire decode [--format={formats}]\n"
    "                        [--brief] [--git_exact] [--nesting=N] [--evt=1|2|3|4]\n"
    "                        [--stacks] [--regions] [--salvage] [--follow]\n"
    "                        [--since=TIME] [--until=TIME] [--sid=PATTERN] [--pid=N]\n"
    "                        [--jobs=N] FILE|DIR|- [-o OUT]\n"
    "       tracewire decode [--format=otlp] --otlp-endpoint=URL [--otlp-header=NAME=VALUE]...\n"
    "                        [--otlp-timeout=D] [--otlp-retry-time=D] FILE|DIR|- [-o OUT]\n"
    "\n"
    "Decodes a trace into one of git's Trace2 formats: EVENT (JSON lines), PERF\n"
    "(columns) or NORMAL (plain text), or exports it as Chrome Trace Event JSON,\n"
    "OTLP/JSON or a Perfetto protobuf trace, or its CPU samples as folded stacks.\n"
    "FILE is a trace file, - reads stdin, and DIR reads every trace file of a\n"
    "directory (one per process, as TRACEWIRE=<dir> writes them) and merges their\n"
    "events by wall time.\n"
    "\n"
    "Flags (--brief, --git_exact, --nesting, --evt, --stacks and --regions set options of some\n"
    "formats only; given with another format, they are a usage error):\n"
    "  --format=F   output format, one of:\n"
    "{format_lines}"
    "  --follow     follow a FILE that is still being written (like tail -f): write\n"
    "               each generation's events as soon as it is complete; stop on\n"
    "               SIGINT or SIGTERM\n"
    "  --brief      event, perf, normal: brief mode, no time and file:line prefixes\n"
    "               (EVENT keeps \"time\" on version and atexit), like GIT_TRACE2_*_BRIEF\n"
    "  --git_exact  event, perf, normal: git's exact output. git writes atexit, signal,\n"
    "               timer, th_timer, counter and th_counter from its own code and prints\n"
    "               its own source position for them (trace2/tr2_tgt_perf.c:580); with\n"
    "               --git_exact they get those positions too, otherwise they show no\n"
    "               file:line. It also leaves out tasks and gauges, which git has no\n"
    "               event for (otherwise written as extension lines)\n"
    "  --nesting=N  event: omit region_enter/region_leave/data/data_json nested deeper\n"
    "               than N (default 2, git's GIT_TRACE2_EVENT_NESTING default)\n"
    "  --evt=V      event: the format version (\"evt\") to write, 1 to 4 (default 4),\n"
    "               with the events and keys git wrote in that version: 1 (git\n"
    "               2.22-2.23) has no too_many_files, cmd_ancestry, child_ready,\n"
    "               def_param scope, timers or counters; 2 (2.24-2.33) adds\n"
    "               too_many_files; 3 (2.34-2.46) adds the rest; only 4 (2.47+)\n"
    "               writes printf events\n"
    "  --stacks     event: add a \"stack\" array to events recorded with a stack\n"
    "               (TRACEWIRE_STACKS): each frame's pc, function, source file and\n"
    "               line, module and offset, symbolized from the modules' symbol and\n"
    "               DWARF line tables when this machine has their files (not a git key)\n"
    "  --regions    folded: start each stack with the regions open on its thread when\n"
    "               the sample was taken, as region:CATEGORY/LABEL frames\n"
    "  --salvage    do not stop at damage: decode every complete generation that\n"
    "               validates, skip the others, and report the loss on stderr\n"
    "  --since=TIME, --until=TIME   keep only the events from/until TIME: a\n"
    "               duration from the trace's start (2.5s, 250ms, 1m30s) or a UTC time\n"
    "               (2026-11-22T02:00:00.25Z); regions open at an edge are cut there\n"
    "               (entered again at --since, left at --until)\n"
    "  --sid=PATTERN  keep the processes one of whose sid components (its own or a\n"
    "               parent's) matches the glob PATTERN: a process and its children\n"
    "  --pid=N      keep the process with pid N (from its sid) and its children\n"
    "  --jobs=N     decode on N threads (default 0: one per core; 1: serial); the\n"
    "               output is the same for every N\n"
    "  -o OUT       write to OUT instead of stdout\n"
    "  --otlp-endpoint=URL   send the OTLP requests to an OpenTelemetry Collector:\n"
    "               POST URL/v1/traces (OTLP/HTTP, JSON), e.g. http://localhost:4318;\n"
    "               implies --format=otlp; nothing goes to stdout unless -o is given\n"
    "  --otlp-header=NAME=VALUE   a header of every request (repeatable), e.g.\n"
    "               --otlp-header='Authorization=Bearer TOKEN'\n"
    "  --otlp-timeout=D     time limit of one attempt (default 10s)\n"
    "  --otlp-retry-time=D  time limit of one request with its retries (default 60s);\n"
    "               429, 502, 503, 504 and connection failures are retried after\n"
    "               Retry-After or an exponential backoff\n"
    "\n"
    "Exit codes: 0 success; 1 invalid trace (everything before the error is written),\n"
    "or data lost with --salvage; 2 usage or I/O error; 3 spans the OTLP receiver did\n"
    "not accept (stderr says how many and why); 4 files of DIR that could not be read\n"
    "were skipped (each named on stderr; the output holds all the others).\n";

int RunDecodeCommand(const Command& command, const CommandLine& line) {
  if (line.positional.size() != 1) return UsageError(command, "expects one FILE, DIR or -");
  DecodeOptions options;
  options.input = line.positional[0];
  options.output = absl::GetFlag(FLAGS_o);
  // The format name is checked by targets::MakeFormatter (so formats it gains appear here).
  options.format = absl::GetFlag(FLAGS_format);
  absl::StatusOr<targets::FormatterOptions> formatter = FormatterOptionsFromFlags();
  if (!formatter.ok()) return UsageError(command, formatter.status().message());
  options.formatter = *formatter;
  options.salvage = absl::GetFlag(FLAGS_salvage);
  options.follow = absl::GetFlag(FLAGS_follow);
  absl::StatusOr<OtlpHttpOptions> otlp = OtlpOptionsFromFlags(line);
  if (!otlp.ok()) return UsageError(command, otlp.status().message());
  options.otlp = *std::move(otlp);
  if (!options.otlp.endpoint.empty()) {
    if (!line.Has("format")) options.format = "otlp";
    if (options.format != "otlp") return UsageError(command, "--otlp-endpoint needs --format=otlp");
  }
  if (const absl::Status applies = CheckFormatterFlagsApply(line, options.format); !applies.ok()) {
    return UsageError(command, applies.message());
  }
  for (const auto& [flag, edge] :
       {std::pair{"since", &options.window.since}, std::pair{"until", &options.window.until}}) {
    if (!line.Has(flag)) continue;
    absl::StatusOr<reader::WindowTime> t = reader::ParseWindowTime(
        absl::GetFlag(std::string(flag) == "since" ? FLAGS_since : FLAGS_until));
    if (!t.ok()) return UsageError(command, absl::StrCat("--", flag, ": ", t.status().message()));
    *edge = *t;
  }
  options.window.sid_pattern = absl::GetFlag(FLAGS_sid);
  if (line.Has("sid") && options.window.sid_pattern.empty()) {
    return UsageError(command, "--sid needs a PATTERN");
  }
  if (line.Has("pid")) {
    if (absl::GetFlag(FLAGS_pid) <= 0) return UsageError(command, "--pid must be > 0");
    options.window.pid = absl::GetFlag(FLAGS_pid);
  }
  if (options.follow && options.window.active()) {
    return UsageError(command, "--since, --until, --sid and --pid do not apply to --follow");
  }
  options.jobs = absl::GetFlag(FLAGS_jobs);
  if (options.jobs < 0) return UsageError(command, "--jobs must be >= 0");
  // A followed trace is decoded as it grows, serially: --jobs would do nothing.
  if (options.follow && line.Has("jobs")) {
    return UsageError(command,
                      "--jobs does not apply to --follow (a followed trace is decoded serially)");
  }
  return Decode(options);
}

// kHelpTemplate with the formats of the registry: their names, and a line each.
const std::string& Help() {
  static const std::string* const help = [] {
    std::vector<absl::string_view> names;
    std::string lines;
    for (const targets::OutputFormat& format : targets::OutputFormats()) {
      names.push_back(format.name);
      // "  name      help", the help wrapped at 80 columns under its first word.
      std::string line =
          absl::StrCat(std::string(15, ' '), format.name,
                       std::string(std::max<size_t>(1, 10 - format.name.size()), ' '));
      const size_t indent = line.size();
      bool first = true;
      for (absl::string_view word : absl::StrSplit(format.help, ' ')) {
        if (!first && line.size() + 1 + word.size() > 80) {
          absl::StrAppend(&lines, line, "\n");
          line = std::string(indent, ' ');
          first = true;
        }
        absl::StrAppend(&line, first ? "" : " ", word);
        first = false;
      }
      absl::StrAppend(&lines, line, "\n");
    }
    return new std::string(absl::StrReplaceAll(
        kHelpTemplate, {{"{formats}", absl::StrJoin(names, "|")}, {"{format_lines}", lines}}));
  }();
  return *help;
}

}  // namespace

const Command& DecodeCommand() {
  static const Command* const command = new Command{
      .name = "decode",
      .summary =
          "render a trace as git's Trace2 EVENT/PERF/NORMAL, Chrome JSON, OTLP, Perfetto or folded",
      .help = Help(),
      .flags = {FlagOf(FLAGS_format), FlagOf(FLAGS_brief), FlagOf(FLAGS_git_exact),
                FlagOf(FLAGS_nesting), FlagOf(FLAGS_evt), FlagOf(FLAGS_stacks),
                FlagOf(FLAGS_regions), FlagOf(FLAGS_salvage), FlagOf(FLAGS_follow),
                FlagOf(FLAGS_since), FlagOf(FLAGS_until), FlagOf(FLAGS_sid), FlagOf(FLAGS_pid),
                FlagOf(FLAGS_o), FlagOf(FLAGS_jobs), FlagOf(FLAGS_otlp_endpoint),
                FlagOf(FLAGS_otlp_header), FlagOf(FLAGS_otlp_timeout),
                FlagOf(FLAGS_otlp_retry_time)},
      .run = RunDecodeCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
