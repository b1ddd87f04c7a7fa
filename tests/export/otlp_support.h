// Test support for the OTLP tests: reading OTLP/JSON lines back (spans with their resource),
// the official-schema check (tests/consumers/otlp_schema_check.mjs), and a large synthetic
// git Trace2 EVENT stream.
#ifndef TRACEWIRE_TESTS_EXPORT_OTLP_SUPPORT_H_
#define TRACEWIRE_TESTS_EXPORT_OTLP_SUPPORT_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace tracewire::testing {

// One span of an OTLP/JSON request with the attributes of its resource.
struct OtlpSpan {
  nlohmann::json span;
  nlohmann::json resource_attributes;
  nlohmann::json scope;
};

// Every span of `text` (JSON lines, each an ExportTraceServiceRequest). A line that is not
// JSON fails the test.
std::vector<OtlpSpan> OtlpSpans(const std::string& text);

// The AnyValue of attribute `key` in `attributes` (a JSON array of {key, value}); null if
// absent.
nlohmann::json OtlpAttribute(const nlohmann::json& attributes, const std::string& key);

// What the official-schema check found.
struct SchemaCheck {
  bool passed = false;
  uint64_t requests = 0;
  uint64_t spans = 0;
  uint64_t metric_requests = 0;  // ExportMetricsServiceRequest lines
  uint64_t data_points = 0;      // their gauge data points
  std::string output;            // the script's stdout and stderr, for failure messages
};

// Runs otlp_schema_check.mjs over `files` (JSON lines). The toolchain must be installed (a
// missing one fails the test with the install hint).
SchemaCheck CheckOtlpSchema(const std::vector<std::string>& files);

// A scripted OTLP/HTTP receiver on 127.0.0.1 (tests/consumers/otlp_receiver.mjs) that
// records every request; see the script for `script` and `delay_ms`. It exits by itself
// after `lifetime_s` seconds at the latest.
class OtlpReceiver {
 public:
  // Starts the receiver; fails the test (and endpoint() is empty) if it is not listening
  // within 60 s.
  explicit OtlpReceiver(const std::string& script = "", int delay_ms = 0, int lifetime_s = 120);
  // Stops it (SIGTERM) and waits for it.
  ~OtlpReceiver();
  OtlpReceiver(const OtlpReceiver&) = delete;
  OtlpReceiver& operator=(const OtlpReceiver&) = delete;

  // http://127.0.0.1:PORT
  const std::string& endpoint() const { return endpoint_; }
  // The requests recorded so far (see the script's --record).
  std::vector<nlohmann::json> Requests() const;
  // The file of the bodies of the requests answered 2xx.
  const std::string& bodies_path() const { return bodies_; }
  // Waits until `n` requests are recorded, for `timeout` at most; false on timeout.
  bool WaitForRequests(size_t n, absl::Duration timeout) const;
  // Lets requests held by the script's "hold" be answered.
  void Release() const;

 private:
  pid_t pid_ = -1;
  std::string endpoint_;
  std::string record_;
  std::string bodies_;
};

// A git 2.39-style EVENT stream (non-brief, every region) of one `git big` process: version,
// start, cmd_name, then `regions` pairs of nested regions (outer, inner) on the main thread
// with a data event in each inner one, a worker thread with regions, a child that exits 3,
// exit and atexit.
std::string SyntheticGitEventStream(const std::string& sid, int regions);

}  // namespace tracewire::testing

#endif  // TRACEWIRE_TESTS_EXPORT_OTLP_SUPPORT_H_
