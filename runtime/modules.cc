#include "runtime/modules.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

struct ModuleTable {
  std::mutex mu;
  std::vector<ModuleInfo> modules;  // indices are stable: refreshes only append
  unsigned long long adds = 0;      // dl_iterate_phdr's load/unload counters at the refresh
  unsigned long long subs = 0;
  bool loaded = false;
};

ModuleTable& Table() {
  static ModuleTable* table = new ModuleTable();
  return *table;
}

std::string ExecutablePath() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

// The GNU build ID in the object's PT_NOTE segments (mapped memory), as hex.
std::string BuildId(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      memcpy(&note, p, sizeof(note));
      const size_t name_size = (note.n_namesz + 3) & ~size_t{3};
      const size_t desc_size = (note.n_descsz + 3) & ~size_t{3};
      const char* name = p + sizeof(note);
      const char* desc = name + name_size;
      if (desc + desc_size > end) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
        std::string hex;
        for (size_t j = 0; j < note.n_descsz; ++j) {
          AppendHexByte(&hex, static_cast<unsigned char>(desc[j]));
        }
        return hex;
      }
      p = desc + desc_size;
    }
  }
  return "";
}

struct Counters {
  unsigned long long adds = 0;
  unsigned long long subs = 0;
};

int ReadCounters(dl_phdr_info* info, size_t size, void* data) {
  if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
    auto* counters = static_cast<Counters*>(data);
    counters->adds = info->dlpi_adds;
    counters->subs = info->dlpi_subs;
  }
  return 1;  // the counters are the same for every object: stop
}

int CollectModule(dl_phdr_info* info, size_t, void* data) {
  auto* found = static_cast<std::vector<ModuleInfo>*>(data);
  ModuleInfo module;
  bool any = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uint64_t start = info->dlpi_addr + ph.p_vaddr;
    const uint64_t end = start + ph.p_memsz;
    module.start = any ? std::min(module.start, start) : start;
    module.end = any ? std::max(module.end, end) : end;
    any = true;
  }
  if (!any) return 0;
  module.bias = info->dlpi_addr;
  // The executable is the first object, with an empty name.
  module.path = info->dlpi_name != nullptr && info->dlpi_name[0] != '\0'
                    ? std::string(info->dlpi_name)
                    : (found->empty() ? ExecutablePath() : std::string());
  module.build_id = BuildId(info);
  found->push_back(std::move(module));
  return 0;
}

// Re-reads the loaded objects; a module already known (same range, bias and path) keeps
// its index. Requires table.mu.
void RefreshLocked(ModuleTable& table) {
  std::vector<ModuleInfo> found;
  dl_iterate_phdr(CollectModule, &found);
  for (ModuleInfo& module : found) {
    const bool known =
        std::any_of(table.modules.begin(), table.modules.end(), [&module](const ModuleInfo& m) {
          return m.start == module.start && m.end == module.end && m.bias == module.bias &&
                 m.path == module.path;
        });
    if (!known) table.modules.push_back(std::move(module));
  }
  Counters counters;
  dl_iterate_phdr(ReadCounters, &counters);
  table.adds = counters.adds;
  table.subs = counters.subs;
  table.loaded = true;
}

// The newest module holding `pc` (a replaced object's range may be reused), or -1.
int Find(const ModuleTable& table, uintptr_t pc) {
  for (int i = static_cast<int>(table.modules.size()) - 1; i >= 0; --i) {
    const ModuleInfo& m = table.modules[i];
    if (pc >= m.start && pc < m.end) return i;
  }
  return -1;
}

}  // namespace

std::vector<int> ModulesOf(absl::Span<const uintptr_t> pcs) {
  ModuleTable& table = Table();
  std::lock_guard<std::mutex> lock(table.mu);
  Counters counters;
  dl_iterate_phdr(ReadCounters, &counters);
  if (!table.loaded || counters.adds != table.adds || counters.subs != table.subs) {
    RefreshLocked(table);
  }
  std::vector<int> indices;
  indices.reserve(pcs.size());
  bool refreshed = false;
  for (uintptr_t pc : pcs) {
    int index = Find(table, pc);
    if (index < 0 && !refreshed) {
      RefreshLocked(table);
      refreshed = true;
      index = Find(table, pc);
    }
    indices.push_back(index);
  }
  return indices;
}

ModuleInfo ModuleAt(int index) {
  ModuleTable& table = Table();
  std::lock_guard<std::mutex> lock(table.mu);
  return table.modules.at(static_cast<size_t>(index));
}

}  // namespace tracewire::runtime
