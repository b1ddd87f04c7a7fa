// Trace destinations: the values of TRACEWIRE (git's GIT_TRACE2_* rules, notes §5).
#ifndef TRACEWIRE_RUNTIME_TARGET_H_
#define TRACEWIRE_RUNTIME_TARGET_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tracewire::runtime {

// What a TRACEWIRE value asks for.
struct TargetSpec {
  enum class Kind { kDisabled, kFd, kFile, kDirectory, kUnixSocket };
  Kind kind = Kind::kDisabled;
  int fd = -1;       // kFd
  std::string path;  // kFile, kDirectory, kUnixSocket
  enum class SocketType { kAuto, kStream, kDgram };
  SocketType socket_type = SocketType::kAuto;
};

// Parses a TRACEWIRE value: "", "0", "false" (any case) disable; "1", "true" mean stderr;
// "2".."9" an open fd; "af_unix:[stream:|dgram:]/abs/path"; an absolute path to an existing
// directory (one file per process); any other absolute path (append). Anything else is
// InvalidArgument (the caller warns once and stays disabled).
absl::StatusOr<TargetSpec> ParseTarget(absl::string_view value);

// An open destination. Writes are whole: Write() loops over short writes. After a failed
// write the destination reports !ok() and drops everything (tracing must never harm the
// traced program).
class Destination {
 public:
  Destination() = default;
  ~Destination();
  Destination(const Destination&) = delete;
  Destination& operator=(const Destination&) = delete;

  // Opens `spec`. For a directory, the file is named `sid_last_component` (O_EXCL, then
  // ".1" ... ".9"); with max_files > 0 and at least that many entries in the directory
  // (counting "." and ".."), the sentinel "tracewire-discard" is created instead and
  // *too_many_files set (if it already exists, tracing stays off: NotFound).
  absl::Status Open(const TargetSpec& spec, absl::string_view sid_last_component, int max_files,
                    bool* too_many_files);

  // Writes all of `bytes`; async-signal-safe. Returns false (and disables) on error.
  bool Write(const void* bytes, size_t size);

  // True for datagram sockets: every Write must be one frame of at most 64 KiB.
  bool is_datagram() const { return datagram_; }
  bool ok() const { return fd_ >= 0 && !failed_; }
  // The path of the file written (file and directory targets).
  const std::string& path() const { return path_; }
  void Close();

 private:
  int fd_ = -1;
  bool owns_fd_ = false;
  bool datagram_ = false;
  bool socket_ = false;
  bool failed_ = false;
  std::string path_;
};

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_TARGET_H_
