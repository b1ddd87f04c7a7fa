// Creating a trace file in a directory so that nobody ever finds it without its file
// header: the file is created without a name (O_TMPFILE), the header written, and only then
// is it linked under its name, which thus appears with the header in it or not at all — a
// process killed at any instant leaves no empty or header-less file under a trace's name.
// Where the filesystem has no O_TMPFILE (or the file cannot be linked from it), the file is
// created under a hidden temporary name in the same directory (".tracewire-PID-N.tmp") and
// renamed without replacing anything; a process killed before the rename leaves only that
// hidden file. Every function is async-signal-safe (the flight recorder's dumps may open
// their files from a fatal-signal handler), and the common path (O_TMPFILE) uses no large
// buffer, so that a traced start touches no fresh stack page for it.
#ifndef TRACEWIRE_RUNTIME_PUBLISHED_FILE_H_
#define TRACEWIRE_RUNTIME_PUBLISHED_FILE_H_

#include <cstddef>

namespace tracewire::runtime {

// A file created and holding its header, not yet under its name.
struct UnnamedFile {
  int fd = -1;
  const char* directory = nullptr;  // where it was created (the caller's string)
  const void* header = nullptr;     // kept for a late switch to a temporary name
  size_t header_size = 0;
  bool has_temporary_name = false;
  unsigned temporary_number = 0;  // the N of its temporary name
};

// Creates `file` in `directory` (an absolute path) holding the `header_size` bytes of
// `header`, mode 0666 less the umask, close-on-exec. `directory` and `header` must stay
// valid until the file is named or discarded. False, with errno set and nothing left
// behind, if it cannot.
bool CreateUnnamedFile(const char* directory, const void* header, size_t header_size,
                       UnnamedFile* file);

// Gives `file` the name `path`, a path in its directory. Never replaces, and never follows,
// an entry already there (a symlink included): false with errno EEXIST, and `file` may be
// named another way. False with another errno if it cannot be named at all. On success,
// file->fd is the open file (positioned after the header), now the caller's.
bool NameFile(UnnamedFile* file, const char* path);

// Closes a file never named and removes its temporary name, if any.
void DiscardUnnamedFile(UnnamedFile* file);

// Tests only (not part of the API): with `use`, files are created under a temporary name
// as where the filesystem has no O_TMPFILE.
void UseTemporaryNamesForTesting(bool use);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_PUBLISHED_FILE_H_
