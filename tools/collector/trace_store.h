// TraceStore: the directory the collector writes, one trace file per sid, made safe against
// what other users of the directory (or a hostile client choosing its sid) could plant:
//   * the file of a sid is <dir>/<name>, name = reader::SidFileName(last sid component)
//     (only [A-Za-z0-9._-], never "", "." or "..", so no sid can reach outside <dir>),
//     cut to 200 bytes with a hash of the whole component appended when longer;
//   * files are opened with O_NOFOLLOW and O_NONBLOCK and must be regular files with one
//     link: a planted symlink, FIFO, device or hard link is refused (counted), never
//     written through;
//   * each Append is one write of complete generations (O_APPEND), so readers never see a
//     torn generation and several writers may append to one file.
#ifndef TRACEWIRE_TOOLS_COLLECTOR_TRACE_STORE_H_
#define TRACEWIRE_TOOLS_COLLECTOR_TRACE_STORE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tracewire::tools {

class TraceStore {
 public:
  explicit TraceStore(std::string dir) : dir_(std::move(dir)) {}

  // The path of the file that collects `sid`.
  std::string FileFor(absl::string_view sid) const;

  // Appends `first` then `second` (either may be empty) to the file of `sid` with one
  // write. Errors: FailedPrecondition if the path is not a regular file with one link (a
  // symlink, FIFO, …), the open/write errno otherwise.
  absl::Status Append(absl::string_view sid, absl::string_view first, absl::string_view second);

 private:
  std::string dir_;
};

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COLLECTOR_TRACE_STORE_H_
