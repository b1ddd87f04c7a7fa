// TraceRouter: where what the collector's peers send goes, shared by all peers of one
// Collector::Run() (stream connections, datagram senders, git line streams):
//   * each complete runtime generation is appended to its sid's file as "file header +
//     generation" with one write (TraceStore), so every file is a valid trace at all
//     times; a generation without a sid is counted, not written;
//   * each git process converted by a Trace2EventStream is written to its sid's file, or
//     counted and logged if it could not be converted;
//   * processes are reported complete (CollectorOptions::on_process_complete) when their
//     atexit or signal generation is written, when a git process is written, and for the
//     sids a peer wrote when that peer ends (ReportAll);
//   * every write, refusal and drop is counted (CollectorCounters) and logged
//     (RateLimitedLog).
// Runs on the poll loop's thread.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_TRACE_ROUTER_H_
#define TRACEWIRE_TOOLS_COLLECTOR_TRACE_ROUTER_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "tools/collector/collector.h"
#include "tools/collector/collector_counters.h"
#include "tools/collector/generation_splitter.h"
#include "tools/collector/rate_limited_log.h"
#include "tools/collector/trace2_event_stream.h"
#include "tools/collector/trace_store.h"

namespace tracewire::tools {

// The sids a peer wrote generations of since their process was last reported complete.
using UnreportedSids = absl::flat_hash_set<std::string>;

class TraceRouter {
 public:
  // Writes into options.out_dir; `options`, `counters` and `log` must outlive the router.
  TraceRouter(const CollectorOptions& options, CollectorCounters& counters, RateLimitedLog& log);

  // Stores every complete generation `splitter` holds, keeping `unreported` (the peer's)
  // up to date. False if its stream is malformed or over the generation size limit (the
  // stream is then to be dropped; counted and logged, with the start of `received`, the
  // bytes just appended, in the message).
  bool Drain(GenerationSplitter& splitter, UnreportedSids& unreported, absl::string_view received);

  // Writes the git processes `stream` completed since the last call (none if `stream` is
  // null).
  void StoreCompletedGit(Trace2EventStream* stream);

  // Reports every sid of `unreported` complete (a peer ended) and clears it.
  void ReportAll(UnreportedSids& unreported);

  // Counts and logs a peer (`what`) dropped over a memory limit.
  void MemoryLimitHit(const std::string& what);

  // Logs one line (rate-limited).
  void Log(const std::string& line) { log_.Log(line); }

  CollectorCounters& counters() { return counters_; }

 private:
  void Store(const SplitGeneration& gen, UnreportedSids& unreported);
  // Appends to the file of `sid`; false (counted and logged) if it could not.
  bool Write(const std::string& sid, absl::string_view first, absl::string_view second);
  void Complete(const std::string& sid);

  const CollectorOptions& options_;
  CollectorCounters& counters_;
  RateLimitedLog& log_;
  TraceStore store_;
  const std::string file_header_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_TRACE_ROUTER_H_
