#include "reader/dw_library.h"

#include "absl/status/status.h"
#include "reader/shared_library.h"

namespace tracewire::reader {

absl::StatusOr<DwLibrary> LoadDwLibrary(const char* file_name) {
  DwLibrary lib;
  const LibraryNeed need{"symbolizing stack frames", "libdw (elfutils)", kDwPackage};
  const absl::Status opened = OpenSharedLibrary(file_name, need, [&lib](FunctionResolver& resolve) {
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
    resolve("dwfl_module_addrdie", &lib.module_addrdie);
    resolve("dwarf_getscopes", &lib.getscopes);
    resolve("dwarf_tag", &lib.tag);
    resolve("dwarf_attr_integrate", &lib.attr_integrate);
    resolve("dwarf_formstring", &lib.formstring);
    resolve("dwarf_formudata", &lib.formudata);
    resolve("dwarf_getsrcfiles", &lib.getsrcfiles);
    resolve("dwarf_filesrc", &lib.filesrc);
    resolve("dwfl_build_id_find_elf", &lib.build_id_find_elf);
    resolve("dwfl_standard_find_debuginfo", &lib.standard_find_debuginfo);
    resolve("dwfl_offline_section_address", &lib.offline_section_address);
  });
  if (!opened.ok()) return opened;
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
