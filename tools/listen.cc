#include "tools/listen.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "tools/collector/collector.h"
#include "tools/exit_codes.h"
#include "tools/stop_signals.h"

namespace tracewire::tools {
namespace {

std::atomic<Collector*> g_collector{nullptr};

void OnListenStopSignal(int) {
  if (Collector* collector = g_collector.load()) collector->Stop();
}

}  // namespace

int Listen(const std::string& address, const std::string& out_dir) {
  CollectorOptions options;
  if (absl::Status s = ParseListenAddress(address, &options); !s.ok()) {
    std::fprintf(stderr, "tracewire listen: %s\n", std::string(s.message()).c_str());
    return kExitUsage;
  }
  options.out_dir = out_dir;
  absl::StatusOr<std::unique_ptr<Collector>> collector = Collector::Listen(options);
  if (!collector.ok()) {
    std::fprintf(stderr, "tracewire listen: %s\n",
                 std::string(collector.status().message()).c_str());
    return kExitUsage;
  }
  g_collector.store(collector->get());
  const SavedStopActions saved_actions = InstallStopHandler(OnListenStopSignal);
  std::fprintf(stderr, "tracewire listen: listening on %s (%s), writing to %s\n",
               options.socket_path.c_str(), options.datagram ? "dgram" : "stream", out_dir.c_str());
  std::fflush(stderr);
  const absl::Status status = (*collector)->Run();
  RestoreStopActions(saved_actions);
  g_collector.store(nullptr);
  const CollectorStats stats = (*collector)->stats();
  std::fprintf(
      stderr,
      "tracewire listen: %" PRIu64 " connections, %" PRIu64 " generations (%" PRIu64
      " bytes) written, %" PRIu64 " unfinished generations dropped, %" PRIu64
      " malformed streams, %" PRIu64 " generations without sid, %" PRIu64 " write errors\n",
      stats.connections, stats.generations_written, stats.bytes_written, stats.partial_generations,
      stats.stream_errors, stats.invalid_generations, stats.write_errors);
  if (!status.ok()) {
    std::fprintf(stderr, "tracewire listen: %s\n", std::string(status.message()).c_str());
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace tracewire::tools
