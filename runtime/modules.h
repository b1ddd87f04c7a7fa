// The modules (executable and shared objects) mapped into the process, as the `module`
// records of a stack table describe them: address range, load bias, file path and GNU
// build ID, so that a reader can symbolize return addresses offline. Kept process-wide,
// refreshed with dl_iterate_phdr(3) when an address is in no known module or objects
// were loaded or unloaded; no symbol lookup happens in the program.
#ifndef TRACEWIRE_RUNTIME_MODULES_H_
#define TRACEWIRE_RUNTIME_MODULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/types/span.h"

namespace tracewire::runtime {

// One mapped object.
struct ModuleInfo {
  uint64_t start = 0;  // lowest address of its loaded segments
  uint64_t end = 0;    // one past the highest
  uint64_t bias = 0;   // load bias: an address in the ELF file is runtime address - bias
  std::string path;    // absolute path ("" if unknown)
  std::string build_id;  // lowercase hex of NT_GNU_BUILD_ID ("" if none)
};

// For each address of `pcs`, the index (in Modules()) of the module holding it, or -1.
// Refreshes the module list when needed. Thread-safe; takes the loader's lock briefly.
std::vector<int> ModulesOf(absl::Span<const uintptr_t> pcs);

// A copy of module `index` as of the last refresh.
ModuleInfo ModuleAt(int index);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_MODULES_H_
