// Trace destinations: the values of TRACEWIRE (git's GIT_TRACE2_* rules, docs/api.md).
#ifndef TRACEWIRE_RUNTIME_TARGET_H_
#define TRACEWIRE_RUNTIME_TARGET_H_

#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

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
// nullopt, with the reason in *error if given (the caller warns once and stays disabled).
std::optional<TargetSpec> ParseTarget(absl::string_view value, std::string* error = nullptr);

// True if `spec` is a file descriptor open on a terminal (TRACEWIRE=1 with stderr on a
// terminal): binary trace data must not be sprayed there, so tracing stays off.
bool IsTerminalTarget(const TargetSpec& spec);

// The one-line warning printed when IsTerminalTarget: tracing is off, and how to see the
// events instead. `name` is the setting ("TRACEWIRE"), `value` its value.
std::string TerminalTargetWarning(absl::string_view name, absl::string_view value);

// Set (to "1") in the environment once the warning is printed, so that the process's
// children, which inherit TRACEWIRE and the terminal, do not print it again.
inline constexpr char kTerminalWarnedVariable[] = "TRACEWIRE_TERMINAL_WARNED";

// Destination::Open's outcome: opened, or why not (the runtime does not use absl::Status,
// see text.h).
class OpenResult {
 public:
  static OpenResult Ok() { return OpenResult(true, false, ""); }
  // `timed_out`: a FIFO nobody opened, or a listener that accepted nothing, in time.
  static OpenResult Failed(std::string message, bool timed_out = false) {
    return OpenResult(false, timed_out, std::move(message));
  }

  bool ok() const { return ok_; }
  bool timed_out() const { return timed_out_; }
  const std::string& message() const { return message_; }

 private:
  OpenResult(bool ok, bool timed_out, std::string message)
      : ok_(ok), timed_out_(timed_out), message_(std::move(message)) {}

  bool ok_;
  bool timed_out_;
  std::string message_;
};

// An open destination. Nothing it does blocks the program for long: a FIFO or socket is
// opened and written without blocking (a shared fd such as stderr with RWF_NOWAIT, or
// polled writes of at most PIPE_BUF bytes), and a write fails once it has made no
// progress for `timeout_ms`. The first failure (an error, a timeout, or the fd closed or
// reused by the program) writes one warning to stderr and fails the destination for good.
// Descriptors it opens are close-on-exec and never 0, 1 or 2.
class Destination {
 public:
  static constexpr int kDefaultTimeoutMs = 1000;

  Destination() { dump_prefix_[0] = '\0'; }
  ~Destination();
  Destination(const Destination&) = delete;
  Destination& operator=(const Destination&) = delete;

  // Opens `spec`. For a directory, the file is named `sid_last_component` (never replacing
  // or following an entry there, so a planted file or symlink is never written through;
  // then ".1" ... ".9"); with max_files > 0 and at least that many entries in the directory
  // (counting "." and ".."), the sentinel "tracewire-discard" is created instead and
  // *too_many_files set (if it already exists, tracing stays off: a failure). A directory's
  // file appears under its name already holding `file_header` (published_file.h), so
  // that a process killed at any instant leaves no empty file; TakeHeaderInPlace() then
  // says so once. A FIFO without a reader, or a stream listener whose backlog is full, is
  // retried for up to `timeout_ms` (then a failure with timed_out()). `timeout_ms` also
  // bounds every later write.
  OpenResult Open(const TargetSpec& spec, absl::string_view sid_last_component, int max_files,
                  bool* too_many_files, int timeout_ms = kDefaultTimeoutMs,
                  absl::string_view file_header = {});

  // Flight-recorder mode: a directory target gets one new file per dump instead of one
  // file per process (other targets ignore it). Call before Open.
  void SetFilePerDump(bool per_dump) { file_per_dump_ = per_dump; }
  bool file_per_dump() const { return file_per_dump_; }
  // With a file per dump: creates the directory's file `sid_last_component.flight-N`
  // (N = `number`; never replacing or following an entry there), which appears already
  // holding `file_header` (TakeHeaderInPlace() then says so once), and writes go there
  // until CloseDumpFile. Async-signal-safe. False if it could not be created.
  bool OpenDumpFile(uint64_t number, const void* file_header, size_t file_header_size);
  void CloseDumpFile();

  // True, once, if the file was created holding its file header and nothing has been
  // written since: the next generation is then written without a header of its own.
  // Async-signal-safe.
  bool TakeHeaderInPlace();

  // Marks where a generation starts. If writing it fails, a file of the runtime's own (a
  // directory target's) is cut back to this point, so it ends with a whole generation.
  void BeginGeneration();

  // Writes all of the `count` pieces (for a datagram socket: as one datagram), failing
  // after timeout_ms without progress. Async-signal-safe. Returns false if the destination
  // failed or had failed.
  bool WriteV(const iovec* pieces, int count);
  bool Write(const void* bytes, size_t size);

  // True for datagram sockets: every write must be one frame of at most 64 KiB.
  bool is_datagram() const { return datagram_; }
  bool ok() const {
    return fd_ >= 0 && !failed_.load(std::memory_order_relaxed);  // relaxed: see failed_
  }
  // The path of the file written (file and directory targets).
  const std::string& path() const { return path_; }
  void Close();

 private:
  enum class Mode {
    kPlain,         // a regular file: write() never waits for a reader
    kNonBlocking,   // a FIFO or device opened here with O_NONBLOCK
    kSocket,        // send() with MSG_DONTWAIT
    kSharedNoWait,  // a pipe or terminal shared with the program: pwritev2(RWF_NOWAIT)
    kSharedPolled,  // the same without RWF_NOWAIT: poll, then at most PIPE_BUF bytes
  };

  // Sets up writing to the open fd_ (mode, identity) and remembers `label` for warnings.
  OpenResult Adopt(bool owns, absl::string_view label);
  // If nothing is at `path`, creates the file there holding `file_header` (published_file.h)
  // and opens it for appending: true, with the outcome in *result. False, with nothing
  // done, if an entry is there (or appeared meanwhile) or the file cannot be created so.
  bool CreateSharedFile(const std::string& path, absl::string_view file_header, OpenResult* result);
  // Adopts `fd`, a file created here as `path` holding `header_size` bytes of file header.
  OpenResult AdoptCreated(int fd, const std::string& path, size_t header_size);
  // One write attempt of what is left of the pieces: bytes written, or -1 with errno.
  ssize_t WriteOnce(const iovec* pieces, int count);
  // Fails the destination for good and warns once. `err` is an errno value or 0.
  void Fail(const char* what, int err);

  int fd_ = -1;
  bool owns_fd_ = false;
  bool datagram_ = false;
  bool exclusive_ = false;                // a file created here: nobody else appends to it
  std::atomic<Mode> mode_{Mode::kPlain};  // kSharedNoWait may fall back to kSharedPolled
  int timeout_ms_ = kDefaultTimeoutMs;
  uint64_t device_ = 0;  // identity of what fd_ referred to when opened
  uint64_t inode_ = 0;
  // The words below (and mode_) are relaxed everywhere: each is read and written by the
  // one thread writing to the destination at a time (advance_mu, output_mu or the
  // emergency path's locks order them); atomic so that a signal handler's read is defined.
  // None of them publishes other data.
  std::atomic<bool> failed_{false};
  std::atomic<bool> warned_{false};
  std::atomic<uint64_t> written_{0};           // bytes written (exclusive files)
  std::atomic<uint64_t> generation_start_{0};  // written_ when the generation began
  std::atomic<bool> header_in_place_{false};   // see TakeHeaderInPlace
  std::string path_;
  bool file_per_dump_ = false;
  // "dir/sid_last_component" (file per dump). Not zero-filled: its page is touched only when
  // it is set.
  char dump_prefix_[4096];
  char label_[200] = {};  // how warnings name the destination
};

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_TARGET_H_
