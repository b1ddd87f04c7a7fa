#include "tools/commands/listen_command.h"

#include <sys/types.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "format/constants.h"
#include "tools/cli/usage.h"
#include "tools/commands/listen.h"
#include "tools/commands/otlp_flags.h"
#include "tools/commands/shared_flags.h"

ABSL_FLAG(int, otlp_queue, 1000, "listen: processes waiting to be forwarded, at most");
ABSL_FLAG(std::string, socket_mode, "0600", "listen: permissions of the socket file (octal)");
ABSL_FLAG(absl::Duration, idle_timeout, absl::Minutes(5),
          "listen: close a connection silent for this long (0: never)");
ABSL_FLAG(std::string, max_memory, "1G", "listen: memory for unfinished data, all connections");
ABSL_FLAG(std::string, max_connection_memory, "256M",
          "listen: memory for unfinished data of one connection (one generation)");
ABSL_FLAG(int, max_connections, 4096, "listen: connections (dgram: senders) at once");

namespace tracewire::tools {
namespace {

// The help of `tracewire listen`.
constexpr char kHelp[] =
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
    "use, unusable DIR); 3 processes not forwarded to the OTLP endpoint.\n";

int RunListenCommand(const Command& command, const CommandLine& line) {
  if (line.positional.size() != 1) return UsageError(command, "expects one af_unix:PATH address");
  if (absl::GetFlag(FLAGS_out).empty()) return UsageError(command, "--out DIR is required");
  ListenOptions options;
  options.address = line.positional[0];
  CollectorOptions& collector = options.collector;
  collector.out_dir = absl::GetFlag(FLAGS_out);
  const std::string mode = absl::GetFlag(FLAGS_socket_mode);
  if (mode.empty() || mode.size() > 4 || mode.find_first_not_of("01234567") != std::string::npos) {
    return UsageError(command, "--socket-mode must be octal permissions, e.g. 0600 or 0660");
  }
  collector.socket_mode = static_cast<mode_t>(std::stoul(mode, nullptr, 8) & 0777);
  collector.idle_timeout = absl::GetFlag(FLAGS_idle_timeout);
  if (collector.idle_timeout < absl::ZeroDuration()) {
    return UsageError(command, "--idle-timeout must not be negative");
  }
  absl::StatusOr<size_t> total = ParseByteSize(absl::GetFlag(FLAGS_max_memory));
  absl::StatusOr<size_t> per_connection = ParseByteSize(absl::GetFlag(FLAGS_max_connection_memory));
  if (!total.ok()) return UsageError(command, total.status().message());
  if (!per_connection.ok()) return UsageError(command, per_connection.status().message());
  collector.max_total_buffered = *total;
  collector.max_generation_size = std::min(*per_connection, format::kMaxGenerationSize);
  if (absl::GetFlag(FLAGS_max_connections) < 1) {
    return UsageError(command, "--max-connections must be >= 1");
  }
  collector.max_connections = static_cast<size_t>(absl::GetFlag(FLAGS_max_connections));
  absl::StatusOr<OtlpHttpOptions> otlp = OtlpOptionsFromFlags(line);
  if (!otlp.ok()) return UsageError(command, otlp.status().message());
  options.otlp = *std::move(otlp);
  if (absl::GetFlag(FLAGS_otlp_queue) < 1) return UsageError(command, "--otlp-queue must be >= 1");
  if (line.Has("otlp_queue") && options.otlp.endpoint.empty()) {
    return UsageError(command, "the --otlp-* flags need --otlp-endpoint");
  }
  options.otlp_queue = static_cast<size_t>(absl::GetFlag(FLAGS_otlp_queue));
  return Listen(options);
}

}  // namespace

const Command& ListenCommand() {
  static const Command* const command = new Command{
      .name = "listen",
      .summary = "collect traces and git's Trace2 EVENT streams from a Unix socket",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_out), FlagOf(FLAGS_socket_mode), FlagOf(FLAGS_idle_timeout),
                FlagOf(FLAGS_max_memory), FlagOf(FLAGS_max_connection_memory),
                FlagOf(FLAGS_max_connections), FlagOf(FLAGS_otlp_endpoint),
                FlagOf(FLAGS_otlp_header), FlagOf(FLAGS_otlp_timeout),
                FlagOf(FLAGS_otlp_retry_time), FlagOf(FLAGS_otlp_queue)},
      .run = RunListenCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
