// `tracewire listen af_unix:[stream:|dgram:]PATH --out DIR`: runs a Collector
// (tools/collector) until SIGINT or SIGTERM, writing one trace file per sid into DIR, and
// with an OTLP endpoint forwards each completed process (tools/otlp/otlp_forwarder.h).
#ifndef TRACEWIRE_TOOLS_COMMANDS_LISTEN_H_
#define TRACEWIRE_TOOLS_COMMANDS_LISTEN_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/collector/collector.h"
#include "tools/otlp/otlp_http_exporter.h"

namespace tracewire::tools {

struct ListenOptions {
  std::string address;  // af_unix:[stream:|dgram:]PATH
  // out_dir, socket_mode, idle_timeout, memory and connection limits (socket_path and
  // datagram come from `address`).
  CollectorOptions collector;
  // With an endpoint: forward every completed process over OTLP/HTTP.
  OtlpHttpOptions otlp;
  size_t otlp_queue = 1000;  // processes waiting to be forwarded, at most
};

// Parses a size: a number of bytes with an optional K, M or G suffix (powers of 1024).
absl::StatusOr<size_t> ParseByteSize(absl::string_view text);

// Runs the subcommand; returns the exit code: 0 after a signal stopped it, 2 for usage or
// I/O errors (bad address, socket in use, unusable DIR, bad endpoint), 3 if processes were
// not forwarded to the OTLP endpoint. Prints where it listens when ready, notable events
// (limits hit, malformed streams, refused files) as they happen, and a summary of what it
// received and forwarded when it stops, on stderr.
int Listen(const ListenOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_LISTEN_H_
