#include "tools/commands/listen.h"

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "format/byte_size.h"
#include "tools/cli/exit_codes.h"
#include "tools/otlp/otlp_forwarder.h"
#include "tools/cli/stop_signals.h"

namespace tracewire::tools {
namespace {

std::atomic<Collector*> g_collector{nullptr};
// Set by a stop signal that came before the collector was published in g_collector.
std::atomic<bool> g_stop_requested{false};

void OnListenStopSignal(int) {
  g_stop_requested.store(true);
  if (Collector* collector = g_collector.load()) collector->Stop();
}

void Print(const std::string& line) {
  std::fprintf(stderr, "tracewire listen: %s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace

absl::StatusOr<size_t> ParseByteSize(absl::string_view text) {
  const std::optional<uint64_t> bytes = format::ParseByteSize(text, uint64_t{1} << 50);
  if (!bytes.has_value() || *bytes == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("size '", text, "' is not a positive number of bytes (K, M, G allowed)"));
  }
  return static_cast<size_t>(*bytes);
}

int Listen(const ListenOptions& listen_options) {
  CollectorOptions options = listen_options.collector;
  if (absl::Status s = ParseListenAddress(listen_options.address, &options); !s.ok()) {
    Print(std::string(s.message()));
    return kExitUsage;
  }
  options.log = Print;
  std::unique_ptr<OtlpForwarder> forwarder;
  if (!listen_options.otlp.endpoint.empty()) {
    absl::StatusOr<std::unique_ptr<OtlpHttpExporter>> exporter =
        OtlpHttpExporter::Create(listen_options.otlp);
    if (!exporter.ok()) {
      Print(std::string(exporter.status().message()));
      return kExitUsage;
    }
    forwarder = std::make_unique<OtlpForwarder>(*std::move(exporter), listen_options.otlp_queue,
                                                [](const std::string& line) { Print(line); });
    options.on_process_complete = [&forwarder](const CompletedProcess& process) {
      forwarder->Enqueue(process.sid, process.path);
    };
  }
  // The stop handler is in place before the socket appears: a client (or a test) that finds
  // the socket and sends SIGTERM at once gets an orderly stop, not the default action.
  g_stop_requested.store(false);
  const SavedStopActions saved_actions = InstallStopHandler(OnListenStopSignal);
  absl::StatusOr<std::unique_ptr<Collector>> collector = Collector::Listen(options);
  if (!collector.ok()) {
    RestoreStopActions(saved_actions);
    Print(std::string(collector.status().message()));
    return kExitUsage;
  }
  g_collector.store(collector->get());
  if (g_stop_requested.load()) (*collector)->Stop();  // the signal came before the store
  Print(absl::StrCat(
      "listening on ", options.socket_path, " (", options.datagram ? "dgram" : "stream", ", mode ",
      absl::StrFormat("%04o", options.socket_mode), "), writing to ", options.out_dir,
      forwarder != nullptr ? absl::StrCat(", forwarding to ", forwarder->url()) : ""));
  const absl::Status status = (*collector)->Run();
  RestoreStopActions(saved_actions);
  g_collector.store(nullptr);
  const CollectorStats s = (*collector)->stats();
  collector->reset();  // closes the socket: nothing new arrives while the queue drains
  Print(absl::StrCat(s.connections, " connections (", s.git_connections, " of git), ",
                     s.generations_written, " generations and ", s.git_processes,
                     " git processes (", s.bytes_written, " bytes) written; ",
                     s.partial_generations, " unfinished generations dropped, ", s.stream_errors,
                     " malformed streams, ", s.git_invalid, " unconvertible git processes, ",
                     s.invalid_generations, " generations without sid, ", s.write_errors,
                     " write errors, ", s.unsafe_files, " unsafe files refused"));
  Print(absl::StrCat("limits: ", s.idle_timeouts, " idle connections closed, ",
                     s.memory_limit_drops, " dropped over the memory limit, ",
                     s.refused_connections, " refused over the connection limit, ", s.accept_pauses,
                     " pauses at the file descriptor limit"));
  bool forwarded_all = true;
  if (forwarder != nullptr) {
    forwarder->Shutdown(listen_options.otlp.retry_time);
    const OtlpForwarderStats f = forwarder->stats();
    forwarded_all = f.complete();
    Print(absl::StrCat(
        "OTLP: ", f.forwarded, " processes forwarded to ", forwarder->url(), " (", f.totals.spans,
        " spans in ", f.totals.requests, " requests); not delivered: ", f.failed, " processes (",
        f.totals.failed_spans, " spans), ", f.dropped, " dropped from the full queue, ",
        f.totals.rejected_spans, " spans rejected"));
  }
  if (!status.ok()) {
    Print(std::string(status.message()));
    return kExitUsage;
  }
  return forwarded_all ? kExitOk : kExitNotDelivered;
}

}  // namespace tracewire::tools
