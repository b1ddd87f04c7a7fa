// Follow: reads a trace file that is still being written, like `tail -f`. The source
// returns the bytes the file holds and, at its current end, waits (polling its size) for
// the writer to append more; the Reader on top of it therefore yields each generation's
// events as soon as the writer has appended the whole generation (the runtime writes
// "file header + generation" in one write). It ends when the stop condition holds (after
// reading what the file holds by then) or when the file stops growing for idle_timeout.
//
//   FollowOptions options;
//   options.stop = [&] { return stop_requested.load(); };
//   auto reader = OpenFollowReader("trace.twr", options);
//   while (auto event = (*reader)->Next(); event.ok() && *event != nullptr) Use(**event);
//
// If the writer stops in the middle of a generation, the reader ends with OutOfRange (the
// usual "truncated" error) once the source ends: every complete generation was delivered.
#ifndef TRACEWIRE_READER_FOLLOW_H_
#define TRACEWIRE_READER_FOLLOW_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "reader/byte_source.h"
#include "reader/reader.h"

namespace tracewire::reader {

struct FollowOptions {
  // How long to sleep at the end of the file before looking again.
  absl::Duration poll_interval = absl::Milliseconds(100);
  // Checked at the end of the file, before each sleep. Once it returns true the source
  // reads what the file holds at that moment and then reports the end of input. Unset:
  // never stop (only idle_timeout ends the input).
  std::function<bool()> stop;
  // End of input once the file has not grown for this long.
  absl::Duration idle_timeout = absl::InfiniteDuration();
  // Called before each sleep (for example to flush output, so that what was decoded so
  // far becomes visible while the writer runs).
  std::function<void()> on_wait;
  // If the file does not exist yet, wait for it (subject to stop and idle_timeout)
  // instead of failing with NotFound.
  bool wait_for_file = true;
};

// A ByteSource that tails `path`. It fails with DataLoss if the file shrinks (it was
// truncated or replaced by a shorter one) and with the open(2)/read(2) error otherwise.
absl::StatusOr<std::unique_ptr<ByteSource>> FollowFileSource(const std::string& path,
                                                             FollowOptions options = {});

// A Reader over FollowFileSource(path, options).
absl::StatusOr<std::unique_ptr<Reader>> OpenFollowReader(const std::string& path,
                                                         FollowOptions options = {},
                                                         ReaderOptions reader_options = {});

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_FOLLOW_H_
