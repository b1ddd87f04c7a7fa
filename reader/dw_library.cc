#include "reader/dw_library.h"

#include <dlfcn.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tracewire::reader {
namespace {

absl::Status NotLoaded(const char* file_name, absl::string_view why) {
  return absl::FailedPreconditionError(
      absl::StrCat("symbolizing stack frames needs libdw (elfutils), which could not be loaded (",
                   file_name, ": ", why, "); install the Debian package ", kDwPackage));
}

// Sets `*function` to `name` in `handle`; false if the library has no such function.
template <typename Function>
bool Resolve(void* handle, const char* name, Function* function) {
  *function = reinterpret_cast<Function>(dlsym(handle, name));
  return *function != nullptr;
}

}  // namespace

absl::StatusOr<DwLibrary> LoadDwLibrary(const char* file_name) {
  void* handle = dlopen(file_name, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return NotLoaded(file_name, error != nullptr ? error : "dlopen failed");
  }
  DwLibrary lib;
  const char* missing = nullptr;
  auto resolve = [&](const char* name, auto* function) {
    if (missing == nullptr && !Resolve(handle, name, function)) missing = name;
  };
  resolve("dwfl_begin", &lib.begin);
  resolve("dwfl_end", &lib.end);
  resolve("dwfl_report_begin", &lib.report_begin);
  // The default version (ELFUTILS_0.156: with add_p_vaddr), as the header declares it.
  resolve("dwfl_report_elf", &lib.report_elf);
  resolve("dwfl_report_end", &lib.report_end);
  resolve("dwfl_module_build_id", &lib.module_build_id);
  resolve("dwfl_module_addrinfo", &lib.module_addrinfo);
  resolve("dwfl_module_getsrc", &lib.module_getsrc);
  resolve("dwfl_lineinfo", &lib.lineinfo);
  resolve("dwfl_build_id_find_elf", &lib.build_id_find_elf);
  resolve("dwfl_standard_find_debuginfo", &lib.standard_find_debuginfo);
  resolve("dwfl_offline_section_address", &lib.offline_section_address);
  if (missing != nullptr) {
    dlclose(handle);
    return NotLoaded(file_name, absl::StrCat("it has no function ", missing));
  }
  return lib;
}

absl::StatusOr<const DwLibrary*> Dw() {
  // A function-local static: loaded once, thread-safe.
  static const absl::StatusOr<DwLibrary>* const loaded =
      new absl::StatusOr<DwLibrary>(LoadDwLibrary());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace tracewire::reader
