// ProcessTreeReader: merges the traces of several inputs (one Reader each, e.g. the
// per-process files of a trace directory, or files several processes appended to) into one
// stream ordered by UTC wall time, and links the processes into a tree through their sids
// (a child's sid is its parent's sid, '/', its own component).
#ifndef TRACEWIRE_READER_PROCESS_TREE_H_
#define TRACEWIRE_READER_PROCESS_TREE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reader/event.h"
#include "reader/reader.h"

namespace tracewire::reader {

// One process of the tree.
struct ProcessNode {
  std::string sid;
  std::string source;  // name of the reader it was first seen in (file path)
  int parent = -1;     // index of the nearest known ancestor, -1 for a root
  std::vector<int> children;
  int depth = 0;  // number of '/' in sid
};

// How a ProcessTreeReader treats an input that fails.
struct ProcessTreeOptions {
  // False: the first error of any input ends the merge. True: an input whose reader fails
  // (an empty or foreign file, a damaged generation outside salvage mode) is dropped at its
  // error and recorded in skipped(); the other inputs are merged to their ends, so one
  // unreadable file of a trace directory never hides the others.
  bool skip_failed_inputs = false;
};

// An input dropped at its error (ProcessTreeOptions::skip_failed_inputs).
struct SkippedInput {
  int input = 0;                  // index of its reader
  absl::Status status;            // the error, naming the input
  uint64_t events_delivered = 0;  // its events merged before the error
};

class ProcessTreeReader {
 public:
  // Merges `readers`. Reads the first event of each (so processes() knows every input's
  // first process); fails if a reader fails there, unless options.skip_failed_inputs.
  static absl::StatusOr<std::unique_ptr<ProcessTreeReader>> Create(
      std::vector<std::unique_ptr<Reader>> readers, ProcessTreeOptions options = {});

  // Reads every regular file of `dir` whose name does not start with '.', in name order,
  // holding a bounded number of them open (FileSourcePool).
  static absl::StatusOr<std::unique_ptr<ProcessTreeReader>> OpenDirectory(
      const std::string& dir, ReaderOptions options = {});

  // The next event of any input, in wall-time order across inputs (ties: shallower sid
  // first, then input order; within one input, its own order); nullptr at the end. Valid
  // until the next call. An error of one input ends the merge (its message names the
  // input), unless options.skip_failed_inputs: then the input is dropped and the merge goes
  // on.
  absl::StatusOr<const Event*> Next();

  // The inputs dropped at an error so far, in the order they failed
  // (ProcessTreeOptions::skip_failed_inputs).
  const std::vector<SkippedInput>& skipped() const { return skipped_; }

  // Index into processes() of the process of the last event returned.
  int last_process() const { return last_process_; }

  // The processes met so far (each input's first process after Create, others as their
  // events arrive), with parent links to the nearest known ancestor.
  const std::vector<ProcessNode>& processes() const { return nodes_; }

  // The reader of input `index` (for its generation info or loss report).
  const Reader& reader(int index) const { return *readers_[index]; }

 private:
  ProcessTreeReader(std::vector<std::unique_ptr<Reader>> readers, ProcessTreeOptions options);
  // Handles an error of input `index`: records it and returns true if the input is skipped.
  bool Skip(int index, const absl::Status& status);
  bool Later(int a, int b) const;  // heap order: true if input a's head comes after b's
  // The node of `sid`, added (and linked into the tree) if new.
  int NodeFor(absl::string_view sid, int depth, const std::string& source);

  std::vector<std::unique_ptr<Reader>> readers_;
  std::vector<const Event*> heads_;
  std::vector<int> heap_;  // inputs with a head event
  std::vector<ProcessNode> nodes_;
  absl::flat_hash_map<std::string, int> by_sid_;
  int last_input_ = -1;
  int last_process_ = -1;
  absl::Status error_;
  ProcessTreeOptions options_;
  std::vector<uint64_t> delivered_;  // events merged per input
  std::vector<SkippedInput> skipped_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_PROCESS_TREE_H_
