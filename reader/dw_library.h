// DwLibrary: the elfutils libdw/libdwfl functions the symbolizer calls, resolved with
// dlopen/dlsym from libdw.so.1 (which brings libelf.so.1) the first time a stack frame
// is symbolized. Programs using the reader link nothing of elfutils, so one that reads
// traces without stacks never loads libdw, libelf or their compression libraries.
//
//   absl::StatusOr<const DwLibrary*> dw = Dw();
//   if (!dw.ok()) { /* no symbols: dw.status() names the library and Debian package */ }
//   Dwfl* dwfl = (*dw)->begin(&callbacks);
//
// The types and constants come from <elfutils/libdwfl.h> at compile time.
#ifndef TRACEWIRE_READER_DW_LIBRARY_H_
#define TRACEWIRE_READER_DW_LIBRARY_H_

#include <elfutils/libdwfl.h>

#include "absl/status/statusor.h"

namespace tracewire::reader {

// The shared library loaded, and the Debian package that installs it.
inline constexpr char kDwLibraryName[] = "libdw.so.1";
inline constexpr char kDwPackage[] = "libdw1";

// The libdw functions tracewire uses (each non-null in a loaded table).
struct DwLibrary {
  decltype(&dwfl_begin) begin = nullptr;
  decltype(&dwfl_end) end = nullptr;
  decltype(&dwfl_report_begin) report_begin = nullptr;
  decltype(&dwfl_report_elf) report_elf = nullptr;
  decltype(&dwfl_report_end) report_end = nullptr;
  decltype(&dwfl_module_build_id) module_build_id = nullptr;
  decltype(&dwfl_module_addrinfo) module_addrinfo = nullptr;
  decltype(&dwfl_module_getsrc) module_getsrc = nullptr;
  decltype(&dwfl_lineinfo) lineinfo = nullptr;
  // The inline chain of an address: its CU's DIE, the scopes holding it, their names and
  // call sites.
  decltype(&dwfl_module_addrdie) module_addrdie = nullptr;
  decltype(&dwarf_getscopes) getscopes = nullptr;
  decltype(&dwarf_tag) tag = nullptr;
  decltype(&dwarf_attr_integrate) attr_integrate = nullptr;
  decltype(&dwarf_formstring) formstring = nullptr;
  decltype(&dwarf_formudata) formudata = nullptr;
  decltype(&dwarf_getsrcfiles) getsrcfiles = nullptr;
  decltype(&dwarf_filesrc) filesrc = nullptr;
  // Callbacks for Dwfl_Callbacks.
  decltype(&dwfl_build_id_find_elf) build_id_find_elf = nullptr;
  decltype(&dwfl_standard_find_debuginfo) standard_find_debuginfo = nullptr;
  decltype(&dwfl_offline_section_address) offline_section_address = nullptr;
};

// Loads the shared library `file_name` (as dlopen(3) finds it) and resolves every
// function of DwLibrary. FailedPrecondition, naming the library, why it could not be
// loaded and the Debian package to install, if the file cannot be loaded or lacks a
// function. The library stays loaded.
absl::StatusOr<DwLibrary> LoadDwLibrary(const char* file_name = kDwLibraryName);

// The process's libdw: loaded once, at the first call; later calls return the same table
// or the same error. Thread-safe.
absl::StatusOr<const DwLibrary*> Dw();

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_DW_LIBRARY_H_
