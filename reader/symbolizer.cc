#include "reader/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reader/dw_library.h"

namespace tracewire::reader {

// One module file reported to its own libdwfl session at the trace's load bias.
struct Symbolizer::Module {
  explicit Module(const DwLibrary& dw) : dw(dw) {}
  ~Module() {
    if (dwfl != nullptr) dw.end(dwfl);
  }
  const DwLibrary& dw;  // the process's libdw (never unloaded)
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;
  std::string key;
};

namespace {

char* g_debuginfo_path = nullptr;  // libdwfl's default search path

// Offline symbolization of files with libdwfl's standard callbacks (set up once, from
// the process's libdw).
const Dwfl_Callbacks* OfflineCallbacks(const DwLibrary& dw) {
  static const Dwfl_Callbacks callbacks = {
      .find_elf = dw.build_id_find_elf,
      .find_debuginfo = dw.standard_find_debuginfo,
      .section_address = dw.offline_section_address,
      .debuginfo_path = &g_debuginfo_path,
  };
  return &callbacks;
}

std::string Hex(const unsigned char* bits, int size) {
  std::string out;
  for (int i = 0; i < size; ++i) absl::StrAppendFormat(&out, "%02x", bits[i]);
  return out;
}

// The demangled form of a C++ symbol; other names unchanged.
std::string Demangle(const char* name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  free(demangled);
  return out;
}

}  // namespace

Symbolizer::Symbolizer() = default;
Symbolizer::~Symbolizer() = default;

absl::string_view Symbolizer::Keep(std::string text) {
  if (text.empty()) return {};
  auto it = interned_.find(text);
  if (it != interned_.end()) return it->second;
  const absl::string_view view = strings_.emplace_back(std::move(text));
  interned_.emplace(std::string(view), view);
  return view;
}

Symbolizer::Module* Symbolizer::FindModule(absl::string_view path, absl::string_view build_id,
                                           uint64_t bias) {
  std::string key = absl::StrCat(path, "\n", build_id, "\n", bias);
  auto it = modules_.find(key);
  if (it != modules_.end()) return it->second.get();
  std::unique_ptr<Module>& slot = modules_[key];
  // libdw is loaded at the first module; without it no module can be used (frames keep
  // what the trace recorded, as for a module whose file is missing).
  const absl::StatusOr<const DwLibrary*> dw = Dw();
  if (!dw.ok()) return nullptr;
  // Only an absolute path to a regular file is opened (never a device or a FIFO).
  const std::string file(path);
  struct stat st;
  if (file.empty() || file[0] != '/' || file.find('\0') != std::string::npos ||
      stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return nullptr;
  }
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return nullptr;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return nullptr;
  }
  auto module = std::make_unique<Module>(**dw);
  module->dwfl = (*dw)->begin(OfflineCallbacks(**dw));
  if (module->dwfl == nullptr) {
    close(fd);
    return nullptr;
  }
  (*dw)->report_begin(module->dwfl);
  // add_p_vaddr: `bias` is the load bias (what dl_iterate_phdr reports as dlpi_addr).
  module->module =
      (*dw)->report_elf(module->dwfl, file.c_str(), file.c_str(), fd, bias, /*add_p_vaddr=*/true);
  (*dw)->report_end(module->dwfl, nullptr, nullptr);
  if (module->module == nullptr) {
    close(fd);  // not consumed on failure
    return nullptr;
  }
  if (!build_id.empty()) {
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int size = (*dw)->module_build_id(module->module, &bits, &vaddr);
    if (size <= 0 || Hex(bits, size) != build_id) return nullptr;  // another file now
  }
  module->key = std::move(key);
  slot = std::move(module);
  return slot.get();
}

absl::string_view Symbolizer::Demangled(absl::string_view name) {
  if (name.size() < 2 || name.substr(0, 2) != "_Z") return name;
  return Keep(Demangle(std::string(name).c_str()));
}

SymbolInfo Symbolizer::Lookup(absl::string_view path, absl::string_view build_id, uint64_t bias,
                              uint64_t pc) {
  const absl::Span<const SymbolInfo> frames = LookupFrames(path, build_id, bias, pc);
  return frames.empty() ? SymbolInfo{} : frames.front();
}

absl::Span<const SymbolInfo> Symbolizer::LookupFrames(absl::string_view path,
                                                      absl::string_view build_id, uint64_t bias,
                                                      uint64_t pc) {
  Module* module = FindModule(path, build_id, bias);
  if (module == nullptr || pc == 0) return {};
  const std::string cache_key = absl::StrCat(module->key, "\n", pc);
  auto cached = cache_.find(cache_key);
  if (cached != cache_.end()) return cached->second;
  // A return address follows the call: the call itself is one byte earlier.
  const Dwarf_Addr address = pc - 1;
  SymbolInfo outer;
  GElf_Off offset = 0;
  GElf_Sym sym;
  if (const char* name = module->dw.module_addrinfo(module->module, address, &offset, &sym, nullptr,
                                                    nullptr, nullptr)) {
    outer.func = Keep(Demangle(name));
  }
  if (Dwfl_Line* line = module->dw.module_getsrc(module->module, address)) {
    int line_number = 0;
    if (const char* source =
            module->dw.lineinfo(line, nullptr, &line_number, nullptr, nullptr, nullptr)) {
      outer.file = Keep(source);
      outer.line = line_number > 0 ? static_cast<uint64_t>(line_number) : 0;
    }
  }
  std::vector<SymbolInfo> chain;
  InlineChain(*module, address, outer, &chain);
  return cache_.emplace(cache_key, std::move(chain)).first->second;
}

void Symbolizer::InlineChain(Module& module, uint64_t address, const SymbolInfo& outer,
                             std::vector<SymbolInfo>* chain) {
  const DwLibrary& dw = module.dw;
  Dwarf_Addr cu_bias = 0;
  Dwarf_Die* cu = dw.module_addrdie(module.module, address, &cu_bias);
  Dwarf_Die* scopes = nullptr;
  const int nscopes = cu == nullptr ? -1 : dw.getscopes(cu, address - cu_bias, &scopes);
  // The name of a function's DIE (through its abstract origin): the linkage name
  // demangled, else its plain name.
  auto function_name = [&](Dwarf_Die* die) -> absl::string_view {
    Dwarf_Attribute attr;
    for (const unsigned name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name}) {
      if (dw.attr_integrate(die, name, &attr) == nullptr) continue;
      if (const char* text = dw.formstring(&attr)) return Keep(Demangle(text));
    }
    return {};
  };
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  const bool have_files = cu != nullptr && dw.getsrcfiles(cu, &files, &nfiles) == 0;
  // scopes[0] is innermost. Each inlined subroutine on the way out is a frame: it is named
  // by its DIE, and the position of the frame outside it is its call site.
  SymbolInfo current{{}, outer.file, outer.line};
  for (int i = 0; i < nscopes; ++i) {
    Dwarf_Die* scope = &scopes[i];
    if (dw.tag(scope) != DW_TAG_inlined_subroutine) continue;
    current.func = function_name(scope);
    chain->push_back(current);
    // The caller's position: the inlined call.
    current = SymbolInfo{};
    Dwarf_Attribute attr;
    Dwarf_Word value = 0;
    if (have_files && dw.attr_integrate(scope, DW_AT_call_file, &attr) != nullptr &&
        dw.formudata(&attr, &value) == 0 && value < nfiles) {
      if (const char* file = dw.filesrc(files, value, nullptr, nullptr)) current.file = Keep(file);
    }
    if (dw.attr_integrate(scope, DW_AT_call_line, &attr) != nullptr &&
        dw.formudata(&attr, &value) == 0) {
      current.line = value;
    }
  }
  free(scopes);
  // The function the code belongs to, from the symbol table.
  current.func = outer.func;
  if (chain->empty()) {
    chain->push_back(outer);
  } else {
    chain->push_back(current);
  }
}

void FrameSymbolizer::Symbolize(const SymbolFrame& frame, std::vector<SymbolFrame>* out) {
  SymbolFrame& first = out->emplace_back(frame);
  if (!first.func.empty()) first.func = symbolizer_.Demangled(first.func);
  if (!sorted_) {
    std::stable_sort(
        modules_.begin(), modules_.end(),
        [](const ModuleRecord& a, const ModuleRecord& b) { return a.start < b.start; });
    sorted_ = true;
  }
  auto it = std::upper_bound(modules_.begin(), modules_.end(), frame.pc,
                             [](uint64_t pc, const ModuleRecord& m) { return pc < m.start; });
  if (it == modules_.begin()) return;
  const ModuleRecord& module = *--it;
  if (frame.pc >= module.end) return;
  first.module = module.path;
  first.module_offset = frame.pc - module.bias;
  const absl::Span<const SymbolInfo> chain =
      symbolizer_.LookupFrames(module.path, module.build_id, module.bias, frame.pc);
  const SymbolFrame base = first;
  for (size_t i = 0; i < chain.size(); ++i) {
    SymbolFrame& out_frame = i == 0 ? out->back() : out->emplace_back(base);
    const SymbolInfo& info = chain[i];
    if (!info.func.empty()) out_frame.func = info.func;
    if (!info.file.empty()) {
      out_frame.file = info.file;
      out_frame.line = info.line;
    } else if (i > 0) {
      out_frame.file = {};
      out_frame.line = 0;
    }
  }
}

}  // namespace tracewire::reader
