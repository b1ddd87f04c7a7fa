#include "tools/collector/trace_store.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reader/sid_parts.h"

namespace tracewire::tools {
namespace {

constexpr size_t kMaxFileName = 200;

// FNV-1a: a stable hash for names cut to length.
uint64_t Fnv1a(absl::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3;
  return h;
}

}  // namespace

std::string TraceStore::FileFor(absl::string_view sid) const {
  const absl::string_view component = reader::SidLastComponent(sid);
  std::string name = reader::SidFileName(component);
  if (name.size() > kMaxFileName) {
    name.resize(kMaxFileName - 17);
    absl::StrAppendFormat(&name, "-%016x", Fnv1a(component));
  }
  return absl::StrCat(dir_, absl::EndsWith(dir_, "/") ? "" : "/", name);
}

absl::Status TraceStore::Append(absl::string_view sid, absl::string_view first,
                                absl::string_view second) {
  const std::string path = FileFor(sid);
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
  if (fd < 0) {
    if (errno == ELOOP || errno == ENXIO || errno == EISDIR) {
      // A symlink (O_NOFOLLOW), a FIFO nobody reads (O_NONBLOCK) or a directory.
      return absl::FailedPreconditionError(
          absl::StrCat(path, " is not a regular file (", strerror(errno), "): not written"));
    }
    return absl::ErrnoToStatus(errno, absl::StrCat("open ", path));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(path, " is not a regular file with one link: not written"));
  }
  iovec parts[2] = {{const_cast<char*>(first.data()), first.size()},
                    {const_cast<char*>(second.data()), second.size()}};
  const size_t total = first.size() + second.size();
  size_t done = 0;
  absl::Status status;
  while (done < total) {
    // After a short write, continue where it stopped.
    iovec rest[2];
    int count = 0;
    size_t skip = done;
    for (const iovec& part : parts) {
      if (skip >= part.iov_len) {
        skip -= part.iov_len;
        continue;
      }
      rest[count++] = {static_cast<char*>(part.iov_base) + skip, part.iov_len - skip};
      skip = 0;
    }
    const ssize_t n = writev(fd, rest, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      status = absl::ErrnoToStatus(errno, absl::StrCat("write ", path));
      break;
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return status;
}

}  // namespace tracewire::tools
