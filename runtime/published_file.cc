#include "runtime/published_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace tracewire::runtime {
namespace {

// Numbers the process's temporary names.
std::atomic<unsigned> g_temporary_names{0};

// UseTemporaryNamesForTesting.
bool g_temporary_names_only = false;

// Appends the `size` bytes of `text` to the NUL-terminated `out` (`capacity` bytes) at
// *length. False if they do not fit.
bool Append(char* out, size_t capacity, size_t* length, const char* text, size_t size) {
  if (*length + size + 1 > capacity) return false;
  memcpy(out + *length, text, size);
  *length += size;
  out[*length] = '\0';
  return true;
}

bool AppendNumber(char* out, size_t capacity, size_t* length, unsigned long long value) {
  char digits[24];
  size_t n = sizeof(digits);
  do {
    digits[--n] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  return Append(out, capacity, length, digits + n, sizeof(digits) - n);
}

bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Closes `fd` keeping errno.
void CloseKeepingErrno(int fd) {
  const int saved = errno;
  close(fd);
  errno = saved;
}

// Writes `file`'s temporary path, DIRECTORY/.tracewire-PID-N.tmp, into `out`. False
// (errno ENAMETOOLONG) if it does not fit.
bool TemporaryPath(const UnnamedFile& file, char* out, size_t capacity) {
  constexpr char kPrefix[] = ".tracewire-";
  constexpr char kSuffix[] = ".tmp";
  const size_t directory_size = strlen(file.directory);
  const bool slash = directory_size > 0 && file.directory[directory_size - 1] == '/';
  size_t length = 0;
  out[0] = '\0';
  if (!Append(out, capacity, &length, file.directory, directory_size) ||
      (!slash && !Append(out, capacity, &length, "/", 1)) ||
      !Append(out, capacity, &length, kPrefix, sizeof(kPrefix) - 1) ||
      !AppendNumber(out, capacity, &length, static_cast<unsigned long long>(getpid())) ||
      !Append(out, capacity, &length, "-", 1) ||
      !AppendNumber(out, capacity, &length, file.temporary_number) ||
      !Append(out, capacity, &length, kSuffix, sizeof(kSuffix) - 1)) {
    errno = ENAMETOOLONG;
    return false;
  }
  return true;
}

// Creates the file under a hidden temporary name in its directory, holding the header.
// Not inlined: its path buffer stays off the stack of the common path.
__attribute__((noinline)) bool CreateWithTemporaryName(UnnamedFile* file) {
  char path[PATH_MAX];
  for (int attempt = 0; attempt < 100; ++attempt) {
    // relaxed: a unique-number counter, publishes nothing.
    file->temporary_number = g_temporary_names.fetch_add(1, std::memory_order_relaxed);
    if (!TemporaryPath(*file, path, sizeof(path))) return false;
    int fd;
    do {
      fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      if (errno == EEXIST) continue;
      return false;
    }
    if (!WriteAll(fd, file->header, file->header_size)) {
      CloseKeepingErrno(fd);
      const int saved = errno;
      unlink(path);
      errno = saved;
      return false;
    }
    file->fd = fd;
    file->has_temporary_name = true;
    return true;
  }
  errno = EEXIST;
  return false;
}

// Renames the temporarily named file to `path`, never replacing an entry there.
__attribute__((noinline)) bool RenameTemporary(UnnamedFile* file, const char* path) {
  char temporary[PATH_MAX];
  if (!TemporaryPath(*file, temporary, sizeof(temporary))) return false;
  // renameat2(RENAME_NOREPLACE) fails on an existing entry instead of replacing it.
  if (renameat2(AT_FDCWD, temporary, AT_FDCWD, path, RENAME_NOREPLACE) == 0) {
    file->has_temporary_name = false;
    return true;
  }
  if (errno == EEXIST) return false;
  // No RENAME_NOREPLACE on this filesystem: a hard link, which never replaces either.
  if (link(temporary, path) != 0) return false;
  const int saved = errno;
  unlink(temporary);
  errno = saved;
  file->has_temporary_name = false;
  return true;
}

__attribute__((noinline)) void RemoveTemporary(const UnnamedFile& file) {
  char temporary[PATH_MAX];
  const int saved = errno;
  if (TemporaryPath(file, temporary, sizeof(temporary))) unlink(temporary);
  errno = saved;
}

// Links the unnamed (O_TMPFILE) file.fd as `path`: 0, or an errno value.
int LinkUnnamed(const UnnamedFile& file, const char* path) {
  char proc_path[40];
  size_t length = 0;
  proc_path[0] = '\0';
  constexpr char kProcFd[] = "/proc/self/fd/";
  Append(proc_path, sizeof(proc_path), &length, kProcFd, sizeof(kProcFd) - 1);
  AppendNumber(proc_path, sizeof(proc_path), &length, static_cast<unsigned long long>(file.fd));
  if (linkat(AT_FDCWD, proc_path, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) return 0;
  if (errno == EEXIST) return EEXIST;
  // Without /proc: linking the descriptor itself (needs CAP_DAC_READ_SEARCH before Linux
  // 6.10).
  if (linkat(file.fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0) return 0;
  return errno;
}

}  // namespace

bool CreateUnnamedFile(const char* directory, const void* header, size_t header_size,
                       UnnamedFile* file) {
  file->fd = -1;
  file->directory = directory;
  file->header = header;
  file->header_size = header_size;
  file->has_temporary_name = false;
  int fd = -1;
  if (g_temporary_names_only) {
    errno = EOPNOTSUPP;
  } else {
    do {
      fd = open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    } while (fd < 0 && errno == EINTR);
  }
  if (fd < 0) {
    // No O_TMPFILE on this filesystem (EOPNOTSUPP) or kernel (EISDIR, EINVAL).
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return false;
    return CreateWithTemporaryName(file);
  }
  if (!WriteAll(fd, header, header_size)) {
    CloseKeepingErrno(fd);
    return false;
  }
  file->fd = fd;
  return true;
}

bool NameFile(UnnamedFile* file, const char* path) {
  if (!file->has_temporary_name) {
    const int err = LinkUnnamed(*file, path);
    if (err == 0) return true;
    if (err == EEXIST) {
      errno = EEXIST;
      return false;
    }
    // The unnamed file cannot be linked here (no /proc, no capability): start again under a
    // temporary name.
    CloseKeepingErrno(file->fd);
    file->fd = -1;
    if (!CreateWithTemporaryName(file)) return false;
  }
  return RenameTemporary(file, path);
}

void DiscardUnnamedFile(UnnamedFile* file) {
  if (file->fd >= 0) CloseKeepingErrno(file->fd);
  file->fd = -1;
  if (file->has_temporary_name) {
    RemoveTemporary(*file);
    file->has_temporary_name = false;
  }
}

void UseTemporaryNamesForTesting(bool use) { g_temporary_names_only = use; }

}  // namespace tracewire::runtime
