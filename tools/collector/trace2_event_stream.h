// Trace2EventStream: the receiving side of git's own af_unix Trace2 EVENT target
// (GIT_TRACE2_EVENT=af_unix:[stream:|dgram:]PATH). git writes one JSON line per event: on a
// stream socket, one connection per process (reads may split or join lines); on a dgram
// socket, one datagram per line from every process at once. The lines are checked as they
// arrive (tools/trace2_import/trace2_line.h) and grouped by sid; when a process ends (its atexit or
// signal line, the end of its stream, or silence for the idle time) its lines are converted
// by the importer (tools/trace2_import/trace2_import.h) into a tracewire trace, generation by generation,
// exactly as `tracewire import` converts them.
//
// Memory is bounded: each process's lines, the line being received and the conversions not
// yet taken count against `max_buffered`; at most `max_processes` processes are open; a
// line longer than `max_line` is an error.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_TRACE2_EVENT_STREAM_H_
#define TRACEWIRE_TOOLS_COLLECTOR_TRACE2_EVENT_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tracewire::tools {

class Trace2EventStream {
 public:
  struct Limits {
    size_t max_buffered = size_t{256} << 20;
    size_t max_line = size_t{4} << 20;
    size_t max_processes = 4096;
  };

  // A process whose lines were converted: its trace (file header and generations), or why
  // its lines could not be converted (InvalidArgument naming the line).
  struct Completed {
    std::string sid;
    absl::StatusOr<std::string> trace;
    size_t lines = 0;
  };

  explicit Trace2EventStream(Limits limits) : limits_(limits) {}

  // Adds bytes of a stream connection. Errors (the stream cannot go on): InvalidArgument
  // for a line that is not a git Trace2 EVENT line, ResourceExhausted over a limit. Lines
  // before the bad one are kept.
  absl::Status AppendStream(absl::string_view bytes, absl::Time now);

  // Adds one datagram: one line, with or without its '\n'. Errors as AppendStream; the
  // datagram is then dropped and the stream goes on.
  absl::Status AppendLine(absl::string_view line, absl::Time now);

  // Ends every open process (the end of the stream): each becomes Completed.
  void EndAll();

  // Ends the processes that received no line for `idle` before `now`.
  void EndIdle(absl::Time now, absl::Duration idle);

  // The processes completed so far (each once).
  std::vector<Completed> TakeCompleted();

  // Bytes held: open processes' lines, a partial line, conversions not yet taken.
  size_t buffered_bytes() const { return buffered_; }

  // Processes seen so far (each sid once while it is open).
  uint64_t processes_opened() const { return processes_opened_; }

  // True while lines of an open process, or a partial line, are held.
  bool has_partial() const { return !processes_.empty() || !partial_.empty(); }

 private:
  struct Process {
    std::string text;  // its lines, '\n'-terminated
    size_t lines = 0;
    absl::Time last_seen;
  };

  absl::Status AddLine(absl::string_view line, absl::Time now);
  void End(const std::string& sid);

  Limits limits_;
  std::string partial_;  // stream bytes after the last '\n'
  int line_number_ = 0;  // lines received, for messages
  absl::flat_hash_map<std::string, Process> processes_;
  std::vector<Completed> completed_;
  size_t buffered_ = 0;
  uint64_t processes_opened_ = 0;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_TRACE2_EVENT_STREAM_H_
