// ProcessTreeReader: merges the traces of several processes (one Reader each, e.g. the
// per-process files of a trace directory) into one stream ordered by UTC wall time, and
// links the processes into a tree through their sids (a child's sid is its parent's sid,
// '/', its own component).
#ifndef TRACEWIRE_READER_PROCESS_TREE_H_
#define TRACEWIRE_READER_PROCESS_TREE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reader/event.h"
#include "reader/reader.h"

namespace tracewire::reader {

// One process of the tree.
struct ProcessNode {
  std::string sid;     // empty if the input had no events
  std::string source;  // the reader's name (file path)
  int parent = -1;     // index of the nearest traced ancestor, -1 for a root
  std::vector<int> children;
  int depth = 0;  // number of '/' in sid
};

class ProcessTreeReader {
 public:
  // Merges `readers`, one per process. Reads the first event of each to learn its sid;
  // fails if a reader fails there or if two inputs share a sid.
  static absl::StatusOr<std::unique_ptr<ProcessTreeReader>> Create(
      std::vector<std::unique_ptr<Reader>> readers);

  // Reads every regular file of `dir` whose name does not start with '.', in name order.
  static absl::StatusOr<std::unique_ptr<ProcessTreeReader>> OpenDirectory(
      const std::string& dir, ReaderOptions options = {});

  // The next event of any process, in wall-time order (ties: shallower sid first, then
  // input order); nullptr at the end. Valid until the next call. An error of one input
  // ends the merge (its message names the input).
  absl::StatusOr<const Event*> Next();

  // Index into processes() of the process of the last event returned.
  int last_process() const { return last_; }

  // The processes, in input order.
  const std::vector<ProcessNode>& processes() const { return nodes_; }

  // The reader of process `index` (for its generation info or loss report).
  const Reader& reader(int index) const { return *readers_[index]; }

 private:
  explicit ProcessTreeReader(std::vector<std::unique_ptr<Reader>> readers);
  bool Later(int a, int b) const;  // heap order: true if a's head comes after b's

  std::vector<std::unique_ptr<Reader>> readers_;
  std::vector<const Event*> heads_;
  std::vector<ProcessNode> nodes_;
  std::vector<int> heap_;
  int last_ = -1;
  absl::Status error_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_PROCESS_TREE_H_
