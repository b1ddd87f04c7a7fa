// TraceInput: the events of the trace named on the command line: a trace file, "-" (stdin),
// or a directory of trace files (one per process, as the runtime writes them; merged by
// wall time into one process tree). It counts the bytes read for progress reports. A Go
// execution trace file is converted (tools/go_import) and read as that tracewire trace.
#ifndef TRACEWIRE_TOOLS_CLI_TRACE_INPUT_H_
#define TRACEWIRE_TOOLS_CLI_TRACE_INPUT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reader/event.h"
#include "reader/loss_report.h"
#include "reader/process_tree.h"
#include "reader/reader.h"

namespace tracewire::tools {

// The worker threads for a --jobs value: `jobs` if positive, else the number of cores.
int DecodingJobs(int jobs);

// True if a reading error is an I/O error (exit code 2) rather than a fault of the trace
// (the reader's OutOfRange, DataLoss, Unimplemented and ResourceExhausted; exit code 1).
bool IsIoError(const absl::Status& status);

// The trace files a path names: "-" and a file name themselves; a directory every regular
// file in it whose name does not start with '.', in name order (NotFound if there is none).
absl::StatusOr<std::vector<std::string>> TraceFilesOf(const std::string& path);

// A file of a directory input that could not be read to its end: it could not be opened,
// or its reader failed (an empty, truncated or foreign file, or damage outside salvage
// mode). The other files were read.
struct SkippedFile {
  std::string file;
  absl::Status status;            // why; the message names the file
  uint64_t events_delivered = 0;  // its events delivered before the error
};

// One trace argument (FILE, DIR or -) read as a single stream of events.
class TraceInput {
 public:
  // Opens `path`: "-" is stdin, a directory is read as every regular file in it whose name
  // does not start with '.', in name order (side by side, through a FileSourcePool, so
  // that any number of files stays under the descriptor limit; options.count_only is not
  // used for a directory, whose merge needs the events' times). A file of a directory that
  // cannot be opened or read is skipped at its error (SkippedFiles()), and the others are
  // read to their ends. Fails (I/O errors) if the path cannot be opened or a directory holds
  // no file. With `keep_stdin`, stdin is read into memory
  // first so that Reopen() works for it too.
  //
  // With `parallel` (jobs >= 2), generations are decoded on that many worker threads
  // (reader/parallel_decoding.h). A single file (or stdin) uses its make_work and commit:
  // commit() gets each block before Next() returns any later event. In a directory the
  // files' events are merged one by one, so there the workers only decode and Next()
  // delivers every event.
  static absl::StatusOr<std::unique_ptr<TraceInput>> Open(
      const std::string& path, reader::ReaderOptions options, bool keep_stdin = false,
      const reader::ParallelOptions* parallel = nullptr);

  // The next event, nullptr at the end. Errors are trace errors (invalid or truncated
  // data; their messages name the file and byte offset) or I/O errors while reading.
  absl::StatusOr<const reader::Event*> Next();

  // Like Next() up to `max` times (max >= 1) without returning the events: the number of
  // events passed, 0 at the end. For callers that only count: cheaper per event.
  absl::StatusOr<uint64_t> SkipEvents(uint64_t max);

  // The input files (a single "-" or file path, or the files of the directory).
  const std::vector<std::string>& files() const { return files_; }
  // A fresh byte source over input file `index` (for a second pass; stdin only if kept).
  absl::StatusOr<std::unique_ptr<reader::ByteSource>> Reopen(size_t index) const;

  // Bytes read so far, and the total input size if known.
  uint64_t bytes_read() const { return *bytes_read_; }
  std::optional<uint64_t> total_bytes() const { return total_bytes_; }

  // Salvage mode: the loss report of each input file that lost data (complete once Next()
  // returned nullptr), with the file name.
  std::vector<std::pair<std::string, reader::LossReport>> LossReports() const;

  // The files of a directory input skipped so far (complete once Next() returned nullptr),
  // in the order they failed. Kept by CloseReaders().
  std::vector<SkippedFile> SkippedFiles() const;
  // True if input file `index` was skipped at an error.
  bool skipped(size_t index) const;

  // Generations whose events were all delivered so far, over every input file.
  uint64_t generations() const;

  // The processes seen so far (directory inputs and files with several processes).
  size_t num_processes() const;

  // Frees the readers and what they hold (read buffers, framed generations, worker
  // threads) once the events are read, for a second pass with Reopen(). files(),
  // Reopen(), bytes_read(), total_bytes() and num_processes() keep their values;
  // Next() and SkipEvents() return the end; LossReports() and generations() report
  // nothing.
  void CloseReaders();

 private:
  TraceInput() = default;
  // Records the process of an event or block delivered from the single file.
  void NoteSid(absl::string_view sid);
  // Adds the merge's newly skipped inputs to skipped_.
  void CollectSkipped();

  std::vector<std::string> files_;
  std::shared_ptr<uint64_t> bytes_read_ = std::make_shared<uint64_t>(0);
  std::optional<uint64_t> total_bytes_;
  std::string stdin_copy_;
  bool stdin_kept_ = false;
  bool salvage_ = false;                                  // for Go traces, converted when opened
  std::unique_ptr<reader::FileSourcePool> pool_;          // directory inputs
  std::unique_ptr<reader::Reader> single_;                // one file
  std::vector<std::unique_ptr<reader::Reader>> pending_;  // directory, before merging
  std::unique_ptr<reader::ProcessTreeReader> tree_;       // directory, merging
  std::vector<const reader::Reader*> readers_;            // every reader, input order
  std::vector<size_t> reader_files_;        // readers_[i] reads files_[reader_files_[i]]
  std::vector<SkippedFile> skipped_;        // directory: files skipped
  std::vector<bool> skipped_files_;         // by index into files_
  size_t tree_skipped_seen_ = 0;            // tree_->skipped() in skipped_
  std::vector<std::string> sids_;           // single file: sids seen
  uint64_t noted_generation_ = 0;           // single file: the generation whose sid was noted
  std::optional<size_t> closed_processes_;  // num_processes() when the readers were closed
};

// Prints one line per skipped file of `input` on stderr ("tracewire COMMAND: skipped ...");
// returns true if any file was skipped (the command then exits with kExitSkipped).
bool ReportSkippedFiles(absl::string_view command, const TraceInput& input);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_TRACE_INPUT_H_
