// `tracewire listen af_unix:[stream:|dgram:]PATH --out DIR`: runs a Collector
// (tools/collector) until SIGINT or SIGTERM, writing one trace file per sid into DIR.
#ifndef TRACEWIRE_TOOLS_LISTEN_H_
#define TRACEWIRE_TOOLS_LISTEN_H_

#include <string>

namespace tracewire::tools {

// Runs the subcommand; returns the exit code: 0 after a signal stopped it, 2 for usage or
// I/O errors (bad address, socket in use, unusable DIR). Prints where it listens when
// ready, and a summary of what it received when it stops, on stderr.
int Listen(const std::string& address, const std::string& out_dir);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_LISTEN_H_
