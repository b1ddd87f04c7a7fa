// Progress: a one-line progress report on stderr for long runs ("decode: 40.0 of 120.0 MiB
// (33%), 1234567 events"), redrawn at most a few times a second, only when stderr is a
// terminal and the run has lasted longer than a second. Finish() erases it.
#ifndef TRACEWIRE_TOOLS_CLI_PROGRESS_H_
#define TRACEWIRE_TOOLS_CLI_PROGRESS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/time/time.h"

namespace tracewire::tools {

// A progress line on stderr (see the file comment).
class Progress {
 public:
  // `label` starts the line (the subcommand name); `unit` names the items counted. Shows
  // nothing unless stderr is a tty.
  explicit Progress(std::string label, std::string unit = "events");
  ~Progress() { Finish(); }

  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Reports the amount of work done; cheap enough to call for every event (it looks at
  // the clock once every 4096 calls). `total_bytes` is the input size if known.
  void Update(uint64_t bytes, std::optional<uint64_t> total_bytes, uint64_t items) {
    if ((++calls_ & 4095) != 0 || !enabled_) return;
    Redraw(bytes, total_bytes, items);
  }

  // Like Update, for callers that already call rarely: looks at the clock every time.
  void Report(uint64_t bytes, std::optional<uint64_t> total_bytes, uint64_t items) {
    if (enabled_) Redraw(bytes, total_bytes, items);
  }

  // Erases the line if one was drawn.
  void Finish();

 private:
  void Redraw(uint64_t bytes, std::optional<uint64_t> total_bytes, uint64_t items);

  std::string label_;
  std::string unit_;
  bool enabled_ = false;
  bool drawn_ = false;
  uint64_t calls_ = 0;
  absl::Time start_;
  absl::Time last_draw_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_PROGRESS_H_
