#include "tools/usage.h"

#include "absl/strings/str_cat.h"

namespace tracewire::tools {
namespace {

struct CommandHelp {
  absl::string_view name;
  absl::string_view summary;
  absl::string_view text;  // the full help; its first line is the synopsis
};

constexpr char kExitCodes[] =
    "Exit codes: 0 success; 1 invalid trace or input (or data lost with --salvage);\n"
    "2 usage or I/O error.\n";

constexpr CommandHelp kCommands[] = {
    {"decode", "render a trace as git's Trace2 EVENT/PERF/NORMAL, Chrome JSON or OTLP",
     "usage: tracewire decode [--format=event|perf|normal|chrome|otlp] [--brief] [--nesting=N]\n"
     "                        [--evt=3|4] [--salvage] [--follow] FILE|DIR|- [-o OUT]\n"
     "\n"
     "Decodes a trace into one of git's Trace2 formats: EVENT (JSON lines), PERF\n"
     "(columns) or NORMAL (plain text), or exports it as Chrome Trace Event JSON or\n"
     "OTLP/JSON. FILE is a trace file, - reads stdin, and DIR reads every trace file of a\n"
     "directory (one per process, as TRACEWIRE=<dir> writes them) and merges their events\n"
     "by wall time.\n"
     "\n"
     "Flags:\n"
     "  --format=F   output format: event (default), perf, normal, chrome (Chrome Trace\n"
     "               Event JSON array for chrome://tracing and Perfetto) or otlp\n"
     "               (OTLP/JSON lines, one ExportTraceServiceRequest per process)\n"
     "  --follow     follow a FILE that is still being written (like tail -f): write\n"
     "               each generation's events as soon as it is complete; stop on\n"
     "               SIGINT or SIGTERM\n"
     "  --brief      brief mode: no time and file:line prefixes (EVENT keeps \"time\" on\n"
     "               version and atexit), like GIT_TRACE2_*_BRIEF\n"
     "  --nesting=N  EVENT: omit region_enter/region_leave/data/data_json nested deeper\n"
     "               than N (default 2, git's GIT_TRACE2_EVENT_NESTING default)\n"
     "  --evt=V      EVENT: the \"evt\" value of version events, 3 or 4 (default 4;\n"
     "               3 also omits printf events, as git before 2.47 does)\n"
     "  --salvage    do not stop at damage: decode every complete generation that\n"
     "               validates, skip the others, and report the loss on stderr\n"
     "  -o OUT       write to OUT instead of stdout\n"
     "\n"
     "Exit codes: 0 success; 1 invalid trace (everything before the error is written),\n"
     "or data lost with --salvage; 2 usage or I/O error.\n"},
    {"validate", "check a whole trace with every rule of the reader",
     "usage: tracewire validate FILE|DIR|-\n"
     "\n"
     "Reads the whole trace with every check of the reader. Prints\n"
     "\"FILE: valid: N events, G generations, P processes\" and exits 0, or prints the\n"
     "reader's error (naming the generation, thread, event and byte offset) and exits 1.\n"
     "\n"
     "Exit codes: 0 valid; 1 invalid or truncated; 2 usage or I/O error.\n"},
    {"dump", "list every frame and record of a trace with byte offsets",
     "usage: tracewire dump FILE|-\n"
     "\n"
     "Lists every frame and record of a trace, one per line, with its byte offset and\n"
     "its arguments by name, driven only by the format's event table (no validation\n"
     "beyond framing). Compressed generations are listed decompressed.\n"
     "\n"
     "Exit codes: 0 success; 1 malformed trace (everything before it is listed);\n"
     "2 usage or I/O error.\n"},
    {"stats", "count events by kind and thread, time regions, size generations",
     "usage: tracewire stats [--top=N] FILE|DIR|-\n"
     "\n"
     "Prints statistics of a trace: processes, generations (and how many are\n"
     "compressed), events and bytes per event, the zstd compression ratio of compressed\n"
     "generations, events by Trace2 event kind and by thread, and the regions with the\n"
     "most total and self time (total minus directly nested regions), by\n"
     "category/label.\n"
     "\n"
     "Flags:\n"
     "  --top=N  regions listed in each ranking (default 10)\n"
     "\n"
     "Exit codes: 0 success; 1 invalid trace; 2 usage or I/O error.\n"},
    {"import", "convert a git Trace2 EVENT stream into a tracewire trace",
     "usage: tracewire import --from=trace2-event [--utc_offset=SECONDS] [--compress]\n"
     "                        IN|- -o OUT\n"
     "\n"
     "Converts the output of GIT_TRACE2_EVENT (non-brief, with every region: set\n"
     "GIT_TRACE2_EVENT_NESTING above the deepest nesting) into a tracewire trace.\n"
     "Several processes may be interleaved in IN; their generations keep the order of\n"
     "the lines. `tracewire decode --nesting=N --evt=E OUT` reproduces every line with\n"
     "the same keys, order and values, and times within 2 microseconds.\n"
     "\n"
     "Flags:\n"
     "  --from=FORMAT       input format; only trace2-event (required)\n"
     "  --utc_offset=SECS   local time minus UTC for the NORMAL and PERF formats\n"
     "                      (default 0: the EVENT stream only has UTC)\n"
     "  --compress          write every generation zstd-compressed\n"
     "  -o OUT              the trace file to write (required; - for stdout)\n"
     "\n"
     "Exit codes: 0 success; 1 invalid input (the message names the line); 2 usage or\n"
     "I/O error.\n"},
    {"listen", "collect the traces of processes sending to a Unix socket",
     "usage: tracewire listen af_unix:[stream:|dgram:]PATH --out DIR\n"
     "\n"
     "Listens on a Unix socket for traced processes (TRACEWIRE=af_unix:PATH), one\n"
     "connection per process, and writes each process's trace to DIR/<last sid\n"
     "component>, a complete generation at a time: every file is always a valid trace,\n"
     "and `tracewire decode DIR` reads them as a process tree. A process that\n"
     "disconnects inside a generation loses only that generation. dgram: sockets tell\n"
     "processes apart by their pid. Runs until SIGINT or SIGTERM, then prints what it\n"
     "received on stderr.\n"
     "\n"
     "Flags:\n"
     "  --out=DIR  directory of the collected traces (required; created if missing)\n"
     "\n"
     "Exit codes: 0 stopped by a signal; 2 usage or I/O error (bad address, socket in\n"
     "use, unusable DIR).\n"},
    {"help", "show the help of a command",
     "usage: tracewire help [COMMAND]\n"
     "\n"
     "Shows the help of COMMAND (the same as `tracewire COMMAND --help`), or the list\n"
     "of commands.\n"},
};

const CommandHelp* Find(absl::string_view command) {
  for (const CommandHelp& help : kCommands) {
    if (help.name == command) return &help;
  }
  return nullptr;
}

}  // namespace

std::string GlobalUsage() {
  std::string text =
      "usage: tracewire <command> [flags] [arguments]\n"
      "\n"
      "tracewire reads traces recorded by the tracewire runtime.\n"
      "\n"
      "Commands:\n";
  for (const CommandHelp& help : kCommands) {
    absl::StrAppend(&text, "  ", help.name, std::string(10 - help.name.size(), ' '), help.summary,
                    "\n");
  }
  absl::StrAppend(&text,
                  "\n`tracewire <command> --help` or `tracewire help <command>` shows a "
                  "command's flags.\n\n",
                  kExitCodes);
  return text;
}

std::optional<std::string> CommandUsage(absl::string_view command) {
  const CommandHelp* help = Find(command);
  if (help == nullptr) return std::nullopt;
  return std::string(help->text);
}

std::string CommandSynopsis(absl::string_view command) {
  const CommandHelp* help = Find(command);
  if (help == nullptr) return "";
  absl::string_view text = help->text;
  // The synopsis runs up to the first blank line.
  return std::string(text.substr(0, text.find("\n\n") + 1));
}

}  // namespace tracewire::tools
