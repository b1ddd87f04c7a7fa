// Trace2Import: converts a git Trace2 EVENT stream (GIT_TRACE2_EVENT output: one JSON
// object per line, one or several processes told apart by "sid", lines interleaved) into a
// tracewire trace whose decoding back to EVENT reproduces every line: the same keys in the
// same order with the same values, and times within 2 µs.
//
// The trace has one file header, then the generations of the processes in the order of the
// input lines: a new generation starts where the stream switches to another process, where
// the wall clock drifts from the monotonic clock by more than 2 µs within a generation
// (each generation has its own clock_sync), where two threads' events are out of time
// order, and at the start of every window of lines.
//
// It streams: lines are converted a window at a time (ImportOptions::window_lines lines,
// or 32 MiB of them), with the next window read ahead so that times it pins are known,
// so memory is bounded by two windows plus the per-process state (thread names, open
// regions), whatever the stream's length. Times are as exact as a whole-stream import's
// unless an event depends on one more than a window away (the t_rel of a data event
// whose region began more than a window earlier can then be off by the wall clock's
// jitter, a few µs). The trace clock counts nanoseconds (freq 1e9); a process starts at the trace time
// of its wall-clock start in Unix nanoseconds (at most the year 2354), and each
// generation's clock_sync ties the trace clock at its first event to that event's wall
// clock ("time" is accepted in the years 1970 to 9999). Monotonic times come from
// tools/trace2_import/import_timeline.h; sites from file/line/category/label/repo; the pid from the
// sid's "-P<hex>" component; thread ids in order of appearance, "main" = 0.
#ifndef TRACEWIRE_TOOLS_TRACE2_IMPORT_TRACE2_IMPORT_H_
#define TRACEWIRE_TOOLS_TRACE2_IMPORT_TRACE2_IMPORT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
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
  // Lines per window (see above); tests use small ones.
  size_t window_lines = 8192;
};

// The longest line accepted (git's lines are far shorter; a stream without newlines is
// refused at this length rather than read whole).
inline constexpr size_t kMaxTrace2LineBytes = size_t{64} << 20;

// A streaming importer: feed it the stream's lines, take the trace's bytes as they come.
class Trace2Importer {
 public:
  explicit Trace2Importer(ImportOptions options);
  ~Trace2Importer();
  Trace2Importer(const Trace2Importer&) = delete;
  Trace2Importer& operator=(const Trace2Importer&) = delete;

  // Adds the next line (without its newline). Errors are InvalidArgument naming the line
  // (this one, or one of the window it completes).
  absl::Status AddLine(absl::string_view line);
  // Converts what is left; call once, after the last line.
  absl::Status Finish();
  // Appends the trace bytes produced so far (the file header first) to *out.
  void TakeOutput(std::string* out);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Converts `text` (the whole EVENT stream) with a Trace2Importer and checks that the
// reader accepts the result (an InternalError if not: a bug of the importer). Blank lines
// are skipped. Errors are InvalidArgument naming the line: a line that is not a JSON
// object, an unknown event or key, a missing or mistyped key, a "time" outside the years
// 1970 to 9999, a t_abs, t_rel or duration above kMaxProcessMicros (100 years), a nesting
// the region stack cannot reproduce, a line above kMaxTrace2LineBytes.
absl::StatusOr<std::string> ImportTrace2Event(absl::string_view text, const ImportOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_TRACE2_IMPORT_TRACE2_IMPORT_H_
