#include "tools/cli/usage.h"

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
    "2 usage or I/O error; 3 spans an OTLP receiver did not accept (--otlp-endpoint).\n";

constexpr CommandHelp kCommands[] = {
    {"decode", "render a trace as git's Trace2 EVENT/PERF/NORMAL, Chrome JSON or OTLP",
     "usage: tracewire decode [--format=event|perf|normal|chrome|otlp] [--brief] [--git_exact]\n"
     "                        [--nesting=N] [--evt=1|2|3|4] [--stacks] [--salvage] [--follow]\n"
     "                        [--jobs=N] FILE|DIR|- [-o OUT]\n"
     "       tracewire decode [--format=otlp] --otlp-endpoint=URL [--otlp-header=NAME=VALUE]...\n"
     "                        [--otlp-timeout=D] [--otlp-retry-time=D] FILE|DIR|- [-o OUT]\n"
     "\n"
     "Decodes a trace into one of git's Trace2 formats: EVENT (JSON lines), PERF\n"
     "(columns) or NORMAL (plain text), or exports it as Chrome Trace Event JSON or\n"
     "OTLP/JSON. FILE is a trace file, - reads stdin, and DIR reads every trace file of a\n"
     "directory (one per process, as TRACEWIRE=<dir> writes them) and merges their events\n"
     "by wall time.\n"
     "\n"
     "Flags:\n"
     "  --format=F   output format: event (default), perf, normal, chrome (Chrome Trace\n"
     "               Event JSON for Perfetto, DevTools and speedscope) or otlp\n"
     "               (OTLP/JSON lines, one ExportTraceServiceRequest per process)\n"
     "  --follow     follow a FILE that is still being written (like tail -f): write\n"
     "               each generation's events as soon as it is complete; stop on\n"
     "               SIGINT or SIGTERM\n"
     "  --brief      brief mode: no time and file:line prefixes (EVENT keeps \"time\" on\n"
     "               version and atexit), like GIT_TRACE2_*_BRIEF\n"
     "  --git_exact  event, perf, normal: git's exact output. git writes atexit, signal,\n"
     "               timer, th_timer, counter and th_counter from its own code and prints\n"
     "               its own source position for them (trace2/tr2_tgt_perf.c:580); with\n"
     "               --git_exact they get those positions too, otherwise they show no\n"
     "               file:line\n"
     "  --nesting=N  EVENT: omit region_enter/region_leave/data/data_json nested deeper\n"
     "               than N (default 2, git's GIT_TRACE2_EVENT_NESTING default)\n"
     "  --evt=V      EVENT: the format version (\"evt\") to write, 1 to 4 (default 4),\n"
     "               with the events and keys git wrote in that version: 1 (git\n"
     "               2.22-2.23) has no too_many_files, cmd_ancestry, child_ready,\n"
     "               def_param scope, timers or counters; 2 (2.24-2.33) adds\n"
     "               too_many_files; 3 (2.34-2.46) adds the rest; only 4 (2.47+)\n"
     "               writes printf events\n"
     "  --stacks     EVENT: add a \"stack\" array to events recorded with a stack\n"
     "               (TRACEWIRE_STACKS): each frame's pc, function, source file and\n"
     "               line, module and offset, symbolized from the modules' symbol and\n"
     "               DWARF line tables when this machine has their files (not a git key)\n"
     "  --salvage    do not stop at damage: decode every complete generation that\n"
     "               validates, skip the others, and report the loss on stderr\n"
     "  --jobs=N     decode generations on N threads (default 0: one per core; 1:\n"
     "               serial); the output is the same for every N\n"
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
     "not accept (stderr says how many and why).\n"},
    {"validate", "check a whole trace with every rule of the reader",
     "usage: tracewire validate [--jobs=N] FILE|DIR|-\n"
     "\n"
     "Reads the whole trace with every check of the reader. Prints\n"
     "\"FILE: valid: N events, G generations, P processes\" and exits 0, or prints the\n"
     "reader's error (naming the generation, thread, event and byte offset) and exits 1.\n"
     "\n"
     "Flags:\n"
     "  --jobs=N     check generations on N threads (default 0: one per core; 1:\n"
     "               serial); the result is the same for every N\n"
     "\n"
     "Exit codes: 0 valid; 1 invalid or truncated; 2 usage or I/O error.\n"},
    {"dump", "list every frame and record of a trace with byte offsets",
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
     "2 usage or I/O error.\n"},
    {"stats", "count events by kind and thread, time regions, size generations",
     "usage: tracewire stats [--top=N] [--jobs=N] FILE|DIR|-\n"
     "\n"
     "Prints statistics of a trace: processes, generations (and how many are\n"
     "compressed), events and bytes per event, the zstd compression ratio of compressed\n"
     "generations, events by Trace2 event kind and by thread, the regions with the\n"
     "most total and self time (total minus directly nested regions), by\n"
     "category/label, and the stacks most events were recorded with (TRACEWIRE_STACKS),\n"
     "symbolized.\n"
     "\n"
     "Flags:\n"
     "  --top=N   regions and stacks listed in each ranking (default 10)\n"
     "  --jobs=N  decode generations on N threads (default 0: one per core; 1: serial);\n"
     "            the statistics are the same for every N\n"
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
    {"listen", "collect traces and git's Trace2 EVENT streams from a Unix socket",
     "usage: tracewire listen af_unix:[stream:|dgram:]PATH --out DIR [--socket-mode=0600]\n"
     "                        [--idle-timeout=5m] [--max-memory=1G]\n"
     "                        [--max-connection-memory=256M] [--max-connections=4096]\n"
     "                        [--otlp-endpoint=URL [--otlp-header=NAME=VALUE]...\n"
     "                         [--otlp-queue=1000] [--otlp-timeout=D] [--otlp-retry-time=D]]\n"
     "\n"
     "Listens on a Unix socket for traced processes (TRACEWIRE=af_unix:PATH) and for\n"
     "git (GIT_TRACE2_EVENT=af_unix:PATH: a connection or datagram starting with '{' is\n"
     "git's EVENT stream, converted per process as `tracewire import` does), and writes\n"
     "each process's trace to DIR/<last sid component>, complete generations at a time:\n"
     "every file is always a valid trace, and `tracewire decode DIR` reads them as a\n"
     "process tree. A process that disconnects inside a generation loses only that\n"
     "generation. dgram: sockets tell runtime processes apart by their pid, git\n"
     "processes by their sid. Runs until SIGINT or SIGTERM, then prints what it received\n"
     "on stderr; limits hit and malformed streams are logged as they happen.\n"
     "\n"
     "Flags:\n"
     "  --out=DIR            directory of the collected traces (required; created if\n"
     "                       missing); files are never written through symlinks\n"
     "  --socket-mode=MODE   permissions of the socket file, whatever the umask\n"
     "                       (default 0600: only this user may connect; 0660: the group)\n"
     "  --idle-timeout=D     close a connection that sends nothing for D (default 5m;\n"
     "                       0: never)\n"
     "  --max-memory=SIZE    unfinished data held for all connections together (default\n"
     "                       1G); the connection that crosses it is dropped\n"
     "  --max-connection-memory=SIZE   unfinished data of one connection: one generation,\n"
     "                       or a git process's lines (default and at most 256M)\n"
     "  --max-connections=N  connections at once (default 4096); more are refused\n"
     "  --otlp-endpoint=URL  forward each process, once complete, to an OpenTelemetry\n"
     "                       Collector (OTLP/HTTP JSON, POST URL/v1/traces)\n"
     "  --otlp-header=NAME=VALUE   a header of every request (repeatable)\n"
     "  --otlp-queue=N       processes waiting to be forwarded (default 1000); when full,\n"
     "                       processes are not forwarded (counted and logged; their\n"
     "                       traces stay in DIR)\n"
     "  --otlp-timeout=D, --otlp-retry-time=D   as for decode; at the stop, queued\n"
     "                       processes are forwarded for up to the retry time\n"
     "\n"
     "Exit codes: 0 stopped by a signal; 2 usage or I/O error (bad address, socket in\n"
     "use, unusable DIR); 3 processes not forwarded to the OTLP endpoint.\n"},
    {"run", "run a command traced and print its events live",
     "usage: tracewire run [--format=perf|normal|event] [--brief] [--nesting=N] [-o FILE]\n"
     "                     [--out=DIR] [--] COMMAND [ARGS...]\n"
     "\n"
     "Runs COMMAND with tracing on and prints the events of COMMAND and of every traced\n"
     "process it starts while they run, like GIT_TRACE2_PERF=1 does for git: each\n"
     "process's events appear a generation at a time (every 100 ms unless\n"
     "TRACEWIRE_GENERATION_MS is set). COMMAND is started with TRACEWIRE set to a Unix\n"
     "socket that tracewire listens on. Flags go before COMMAND; `--` ends them.\n"
     "\n"
     "Flags:\n"
     "  --format=F   perf (default, git's PERF columns), normal or event\n"
     "  --brief      brief mode: no time and file:line prefixes\n"
     "  --nesting=N  EVENT: omit regions and data nested deeper than N (default 2)\n"
     "  -o FILE      write the events to FILE instead of stderr\n"
     "  --out=DIR    also keep the traces in DIR (one file per process), for\n"
     "               `tracewire decode DIR` or `tracewire report DIR` later\n"
     "\n"
     "Exit code: COMMAND's (128 + N if signal N ended it; 127 if it was not found, 126\n"
     "if it could not be run); 2 for a usage error.\n"},
    {"report", "write an HTML report of a trace (timelines, process tree, top regions)",
     "usage: tracewire report FILE|DIR|- [-o report.html]\n"
     "\n"
     "Writes one self-contained HTML page (no script, nothing fetched from the network)\n"
     "about the trace: its process tree with exit codes and errors, the regions with the\n"
     "most total and self time, and per process a timeline of its threads (regions by\n"
     "depth, errors marked) and of its child processes (each linked to its own section).\n"
     "Regions too short to see are drawn as one grey bar per run, so the page stays small\n"
     "for traces of millions of events. Open it in any browser.\n"
     "\n"
     "Flags:\n"
     "  -o FILE  write the page to FILE (default stdout)\n"
     "\n"
     "Exit codes: 0 success; 1 invalid trace (the report of the events before the\n"
     "damage is still written, with a warning); 2 usage or I/O error.\n"},
    {"version", "print the version of tracewire and of its trace format",
     "usage: tracewire version\n"
     "       tracewire --version\n"
     "\n"
     "Prints \"tracewire version V (trace format version F)\": the release of the\n"
     "command and the version of the trace format it reads and writes.\n"},
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
