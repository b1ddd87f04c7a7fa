// OtlpForwarder: the OTLP/HTTP export of `tracewire listen`. Each process whose trace is
// complete in its file is queued; a worker thread decodes the file into OTLP/JSON (the
// otlp formatter) and sends it (OtlpSender, which batches and counts).
//
// The queue is bounded: when it is full (a receiver slower than the processes that end, or
// one that is down), the process is not forwarded — its trace stays in its file — and that
// is counted and logged. Memory is thus bounded by the queue's capacity (a sid and a path
// per entry) plus the one process being sent.
#ifndef TRACEWIRE_TOOLS_OTLP_OTLP_FORWARDER_H_
#define TRACEWIRE_TOOLS_OTLP_OTLP_FORWARDER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tools/otlp/otlp_http_exporter.h"
#include "tools/otlp/otlp_sender.h"

namespace tracewire::tools {

// What a forwarder did.
struct OtlpForwarderStats {
  uint64_t forwarded = 0;   // processes whose spans were all delivered
  uint64_t failed = 0;      // processes with spans not delivered (or not sent at shutdown)
  uint64_t dropped = 0;     // processes not queued: the queue was full
  uint64_t unreadable = 0;  // processes whose file could not be decoded completely
  OtlpTotals totals;        // requests and spans

  // True if every process was forwarded.
  bool complete() const { return failed == 0 && dropped == 0 && totals.complete(); }
};

class OtlpForwarder {
 public:
  // Starts the worker. `log` gets one line (no newline) per notable event (thread-safe use
  // from the worker and from Enqueue's caller).
  OtlpForwarder(std::unique_ptr<OtlpHttpExporter> exporter, size_t capacity,
                std::function<void(const std::string&)> log);
  // Shutdown(absl::ZeroDuration()) if it was not called.
  ~OtlpForwarder();
  OtlpForwarder(const OtlpForwarder&) = delete;
  OtlpForwarder& operator=(const OtlpForwarder&) = delete;

  // Queues the trace file `path` of process `sid`; false (counted, logged) if the queue is
  // full. Never blocks.
  bool Enqueue(const std::string& sid, const std::string& path);

  // Sends what is queued for up to `drain`, then cancels what is still in progress and
  // counts what was not sent as failed; stops the worker. Idempotent.
  void Shutdown(absl::Duration drain);

  OtlpForwarderStats stats() const;

  // The URL the requests go to.
  const std::string& url() const { return exporter_->url(); }

 private:
  struct Item {
    std::string sid;
    std::string path;
  };
  void Work();
  void Forward(const Item& item);

  std::unique_ptr<OtlpHttpExporter> exporter_;
  const size_t capacity_;
  std::function<void(const std::string&)> log_;
  std::unique_ptr<OtlpSender> sender_;  // used by the worker only

  mutable absl::Mutex mu_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(mu_);
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool joined_ = false;
  OtlpForwarderStats stats_ ABSL_GUARDED_BY(mu_);
  std::thread worker_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_OTLP_OTLP_FORWARDER_H_
