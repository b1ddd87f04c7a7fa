// The process's ancestry as git's cmd_ancestry reports it on Linux: the names of the
// parent processes, read from /proc, nearest first.
#ifndef TRACEWIRE_RUNTIME_ANCESTRY_H_
#define TRACEWIRE_RUNTIME_ANCESTRY_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/optional.h"
#include <sys/types.h>

namespace tracewire::runtime {

// Most ancestors listed (a guard against a cycle in a damaged /proc).
inline constexpr int kMaxAncestors = 64;

// The command name and parent pid in the text of a /proc/<pid>/stat file
// ("pid (comm) state ppid ..."; comm may hold spaces and parentheses: it ends at the
// last ')'), or nullopt if the text is not in that form.
struct ProcStat {
  std::string name;
  pid_t ppid = 0;
};
absl::optional<ProcStat> ParseProcStat(absl::string_view text);

// Names of `pid` and its ancestors, nearest first, read from `proc_root`/<pid>/stat (as
// git does: from `pid` up to the process whose parent pid is 0, stopping at the first
// unreadable entry).
std::vector<std::string> ReadAncestry(pid_t pid, const std::string& proc_root = "/proc");

// Records cmd_ancestry for the calling process (its parent's chain) at `file`:`line`,
// unless the chain is empty.
void RecordAutomaticAncestry(const char* file, int line);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_ANCESTRY_H_
