#include "runtime/ancestry.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/text.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {
namespace {

// Reads the start of a small /proc file (the name and parent pid come first).
bool ReadSmallFile(const std::string& path, std::string* text) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[512];
  ssize_t n;
  do {
    n = read(fd, buffer, sizeof(buffer));
  } while (n < 0 && errno == EINTR);
  close(fd);
  if (n <= 0) return false;
  text->assign(buffer, static_cast<size_t>(n));
  return true;
}

}  // namespace

absl::optional<ProcStat> ParseProcStat(absl::string_view text) {
  const size_t open = Find(text, '(');
  const size_t close = RFind(text, ')');
  if (open == absl::string_view::npos || close == absl::string_view::npos || close < open) {
    return absl::nullopt;
  }
  // After ") " come the state (one character), a space and the parent pid.
  absl::string_view rest = Substr(text, close + 1);
  if (rest.size() < 4 || rest[0] != ' ' || rest[2] != ' ') return absl::nullopt;
  rest.remove_prefix(3);
  const size_t end = Find(rest, ' ');
  int ppid;
  if (!ParseDecimal(Substr(rest, 0, end), &ppid) || ppid < 0) return absl::nullopt;
  ProcStat stat;
  stat.name = std::string(Substr(text, open + 1, close - open - 1));
  stat.ppid = ppid;
  return stat;
}

std::vector<std::string> ReadAncestry(pid_t pid, const std::string& proc_root) {
  std::vector<std::string> names;
  std::string text;
  while (pid > 0 && names.size() < static_cast<size_t>(kMaxAncestors)) {
    if (!ReadSmallFile(Cat({proc_root, "/", Dec(pid), "/stat"}), &text)) break;
    absl::optional<ProcStat> stat = ParseProcStat(text);
    if (!stat.has_value()) break;
    names.push_back(std::move(stat->name));
    pid = stat->ppid;
  }
  return names;
}

void RecordAutomaticAncestry(const char* file, int line) {
  const std::vector<std::string> names = ReadAncestry(getppid());
  if (names.empty()) return;
  std::vector<const char*> argv;
  for (const std::string& name : names) argv.push_back(name.c_str());
  argv.push_back(nullptr);
  tw_cmd_ancestry_fl(file, line, argv.data());
}

}  // namespace tracewire::runtime
