#include "runtime/published_file.h"

#include <errno.h>
#include <fcntl.h>
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

// Creates the file under a hidden temporary name in the directory made of the first
// `directory_size` bytes of `directory` (which ends with '/'), holding the header.
bool CreateWithTemporaryName(const char* directory, size_t directory_size, UnnamedFile* file) {
  constexpr char kPrefix[] = ".tracewire-";
  constexpr char kSuffix[] = ".tmp";
  for (int attempt = 0; attempt < 100; ++attempt) {
    char* path = file->temporary_path;
    const size_t capacity = sizeof(file->temporary_path);
    size_t length = 0;
    path[0] = '\0';
    if (!Append(path, capacity, &length, directory, directory_size) ||
        !Append(path, capacity, &length, kPrefix, sizeof(kPrefix) - 1) ||
        !AppendNumber(path, capacity, &length, static_cast<unsigned long long>(getpid())) ||
        !Append(path, capacity, &length, "-", 1) ||
        !AppendNumber(path, capacity, &length, g_temporary_names.fetch_add(1)) ||
        !Append(path, capacity, &length, kSuffix, sizeof(kSuffix) - 1)) {
      errno = ENAMETOOLONG;
      return false;
    }
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

// The length of `path`'s directory part, its last '/' included (0 if it has none).
size_t DirectoryPartSize(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash == nullptr ? 0 : static_cast<size_t>(slash - path) + 1;
}

// Links the unnamed (O_TMPFILE) file->fd as `path`: 0, or an errno value.
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
    const size_t size = strlen(directory);
    if (size == 0 || directory[size - 1] == '/') {
      return CreateWithTemporaryName(directory, size, file);
    }
    char with_slash[PATH_MAX];
    size_t length = 0;
    with_slash[0] = '\0';
    if (!Append(with_slash, sizeof(with_slash), &length, directory, size) ||
        !Append(with_slash, sizeof(with_slash), &length, "/", 1)) {
      errno = ENAMETOOLONG;
      return false;
    }
    return CreateWithTemporaryName(with_slash, length, file);
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
    if (!CreateWithTemporaryName(path, DirectoryPartSize(path), file)) return false;
  }
  // renameat2(RENAME_NOREPLACE) fails on an existing entry instead of replacing it.
  if (renameat2(AT_FDCWD, file->temporary_path, AT_FDCWD, path, RENAME_NOREPLACE) == 0) {
    file->has_temporary_name = false;
    return true;
  }
  if (errno == EEXIST) return false;
  // No RENAME_NOREPLACE on this filesystem: a hard link, which never replaces either.
  if (link(file->temporary_path, path) != 0) return false;
  const int saved = errno;
  unlink(file->temporary_path);
  errno = saved;
  file->has_temporary_name = false;
  return true;
}

void DiscardUnnamedFile(UnnamedFile* file) {
  if (file->fd >= 0) CloseKeepingErrno(file->fd);
  file->fd = -1;
  if (file->has_temporary_name) {
    const int saved = errno;
    unlink(file->temporary_path);
    errno = saved;
    file->has_temporary_name = false;
  }
}

void UseTemporaryNamesForTesting(bool use) { g_temporary_names_only = use; }

}  // namespace tracewire::runtime
