// OutputFile: buffered output to a file or stdout, with write errors reported as statuses.
#ifndef TRACEWIRE_TOOLS_OUTPUT_FILE_H_
#define TRACEWIRE_TOOLS_OUTPUT_FILE_H_

#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tracewire::tools {

// A file or stdout, written through a buffer.
class OutputFile {
 public:
  // Opens `path` for writing (truncating it); "" or "-" means stdout.
  static absl::StatusOr<std::unique_ptr<OutputFile>> Open(const std::string& path);
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
  // Flushes and closes; reports any write error.
  absl::Status Close();

 private:
  OutputFile(std::FILE* file, std::string name, bool owned)
      : file_(file), name_(std::move(name)), owned_(owned) {}

  std::FILE* file_;
  std::string name_;
  bool owned_;
  std::string buffer_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_OUTPUT_FILE_H_
