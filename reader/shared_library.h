// Opening a shared library with dlopen(3) and resolving its functions by name: the way the
// command loads the libraries only some of its features need (libdw, libcurl), on first use.
#ifndef TRACEWIRE_READER_SHARED_LIBRARY_H_
#define TRACEWIRE_READER_SHARED_LIBRARY_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace tracewire::reader {

// Resolves functions of one opened library; remembers the first name it could not find.
class FunctionResolver {
 public:
  explicit FunctionResolver(void* handle) : handle_(handle) {}

  // Sets `*function` to the library's function `name` (nullptr if it has none).
  template <typename Function>
  void operator()(const char* name, Function* function) {
    *function = reinterpret_cast<Function>(Find(name));
  }

  // The first name not found, or nullptr.
  const char* missing() const { return missing_; }

 private:
  void* Find(const char* name);

  void* handle_;
  const char* missing_ = nullptr;
};

// Who needs a library, for the error a failed load returns: "FEATURE needs LIBRARY, which
// could not be loaded (FILE: WHY); install the Debian package PACKAGE".
struct LibraryNeed {
  const char* feature;  // "OTLP/HTTP export"
  const char* library;  // "libcurl"
  const char* package;  // "libcurl4"
};

// Opens `file_name` (as dlopen(3) finds it, RTLD_NOW | RTLD_LOCAL) and calls
// `resolve_all` to resolve its functions. FailedPrecondition naming `need`'s feature and
// package and saying why (the loader's error, or "it has no function NAME") if the file
// cannot be loaded or a function is missing; the library is then closed. On success it
// stays loaded.
absl::Status OpenSharedLibrary(const char* file_name, const LibraryNeed& need,
                               absl::FunctionRef<void(FunctionResolver&)> resolve_all);

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_SHARED_LIBRARY_H_
