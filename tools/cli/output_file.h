// OutputFile: buffered output to a file or stdout, with write errors reported as statuses.
// Every command opens its output through it, so none can overwrite one of its own inputs.
#ifndef TRACEWIRE_TOOLS_CLI_OUTPUT_FILE_H_
#define TRACEWIRE_TOOLS_CLI_OUTPUT_FILE_H_

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tracewire::tools {

// Fails with FailedPrecondition if the output (`output`, a path, or stdout for "" or "-")
// is the same file as one of `inputs` (paths; "-" is stdin): writing it would truncate or
// grow an input while it is read. Files are compared by device and inode (so hard links,
// symlinks and other spellings of one path are caught); only regular files are compared.
absl::Status CheckOutputIsNotAnInput(const std::string& output,
                                     absl::Span<const std::string> inputs);

// A file or stdout, written through a buffer.
class OutputFile {
 public:
  // Opens `path` for writing (truncating it); "" or "-" means stdout. Fails without
  // touching the file if it is one of `inputs` (see CheckOutputIsNotAnInput).
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(
      const std::string& path, absl::Span<const std::string> inputs = {});
  ~OutputFile();

  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The buffer to append output to; call MaybeFlush() after appending.
  std::string* buffer() { return &buffer_; }
  // Writes the buffer out once it holds a good amount of data.
  absl::Status MaybeFlush() {
    return buffer_.size() >= (size_t{1} << 18) ? Flush() : absl::OkStatus();
  }
  // Writes the whole buffer out (through to the file: readers see it at once).
  absl::Status Flush();
  // Writes the buffer, then `bytes`, without copying them into the buffer.
  absl::Status Write(absl::string_view bytes);
  // Flushes and closes; reports any write error.
  absl::Status Close();
  // Closes and removes the file (output of a command that failed half-way); a no-op for
  // stdout.
  void Discard();

 private:
  OutputFile(std::FILE* file, std::string name, bool owned)
      : file_(file), name_(std::move(name)), owned_(owned) {}

  std::FILE* file_;
  std::string name_;
  bool owned_;
  std::string buffer_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_OUTPUT_FILE_H_
