// Trace2Import: converts a git Trace2 EVENT stream (GIT_TRACE2_EVENT output: one JSON
// object per line, one or several processes told apart by "sid", lines interleaved) into a
// tracewire trace whose decoding back to EVENT reproduces every line: the same keys in the
// same order with the same values, and times within 2 µs.
//
// The trace has one file header, then the generations of the processes in the order of the
// input lines: a new generation starts where the stream switches to another process, where
// the wall clock drifts from the monotonic clock by more than 2 µs within a generation
// (each generation has its own clock_sync), and where two threads' events are out of time
// order. The trace clock counts nanoseconds (freq 1e9); a process starts at the trace time
// of its wall-clock start in Unix nanoseconds. Monotonic times come from
// tools/import_timeline.h; sites from file/line/category/label/repo; the pid from the
// sid's "-P<hex>" component; thread ids in order of appearance, "main" = 0.
#ifndef TRACEWIRE_TOOLS_TRACE2_IMPORT_H_
#define TRACEWIRE_TOOLS_TRACE2_IMPORT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tracewire::tools {

// Options of ImportTrace2Event.
struct ImportOptions {
  // Local time minus UTC, in seconds, written into every clock_sync (NORMAL and PERF
  // print local time; the EVENT stream only has UTC).
  int64_t utc_offset_sec = 0;
  // Write each generation as one zstd-compressed frame.
  bool compress = false;
  // Called now and then with the bytes and lines parsed so far.
  std::function<void(uint64_t bytes, uint64_t lines)> progress;
};

// Converts `text` (the whole EVENT stream). Blank lines are skipped. Errors are
// InvalidArgument naming the line: a line that is not a JSON object, an unknown event or
// key, a missing or mistyped key, a nesting the region stack cannot reproduce.
absl::StatusOr<std::string> ImportTrace2Event(absl::string_view text, const ImportOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_TRACE2_IMPORT_H_
