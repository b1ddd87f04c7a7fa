#include "reader/shared_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace tracewire::reader {

void* FunctionResolver::Find(const char* name) {
  void* function = dlsym(handle_, name);
  if (function == nullptr && missing_ == nullptr) missing_ = name;
  return function;
}

namespace {

absl::Status NotLoaded(const char* file_name, const LibraryNeed& need, absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat(need.feature, " needs ", need.library, ", which could not be loaded (",
                   file_name, ": ", why, "); install the Debian package ", need.package));
}

}  // namespace

absl::Status OpenSharedLibrary(const char* file_name, const LibraryNeed& need,
                               absl::FunctionRef<void(FunctionResolver&)> resolve_all) {
  void* handle = dlopen(file_name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return NotLoaded(file_name, need, error != nullptr ? error : "dlopen failed");
  }
  FunctionResolver resolver(handle);
  resolve_all(resolver);
  if (resolver.missing() != nullptr) {
    const std::string why = absl::StrCat("it has no function ", resolver.missing());
    dlclose(handle);
    return NotLoaded(file_name, need, why);
  }
  return absl::OkStatus();
}

}  // namespace tracewire::reader
