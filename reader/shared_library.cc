#include "reader/shared_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace tracewire::reader {

void* FunctionResolver::Find(const char* name) {
  void* function = dlsym(handle_, name);
  if (function == nullptr && missing_ == nullptr) missing_ = name;
  return function;
}

absl::Status OpenSharedLibrary(const char* file_name,
                               absl::FunctionRef<void(FunctionResolver&)> resolve_all) {
  void* handle = dlopen(file_name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return absl::FailedPreconditionError(error != nullptr ? error : "dlopen failed");
  }
  FunctionResolver resolver(handle);
  resolve_all(resolver);
  if (resolver.missing() != nullptr) {
    const std::string why = absl::StrCat("it has no function ", resolver.missing());
    dlclose(handle);
    return absl::FailedPreconditionError(why);
  }
  return absl::OkStatus();
}

}  // namespace tracewire::reader
