// Symbolizer: turns the return addresses of a trace's stacks into function names and
// source lines, offline, with elfutils' libdwfl: the ELF symbol tables (.symtab and
// .dynsym) and DWARF line tables of the modules the trace's `module` records name, read
// from this machine's files (separate debug files are found the standard way: build-id
// and .gnu_debuglink under /usr/lib/debug). libdw is loaded when the first module is
// looked up (reader/dw_library.h); if it cannot be loaded, lookups find nothing, as for
// a module whose file is missing.
//
// A module is used only if its file is a regular file whose GNU build ID equals the one
// the trace recorded (when it recorded one), so a rebuilt or different binary at the
// same path yields no names rather than wrong ones. Paths come from the (untrusted)
// trace: nothing but regular files is opened, each at most once.
#ifndef TRACEWIRE_READER_SYMBOLIZER_H_
#define TRACEWIRE_READER_SYMBOLIZER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "reader/event.h"

namespace tracewire::reader {

// What is known about one address, or about one function of its inline chain.
struct SymbolInfo {
  absl::string_view func;  // demangled function name; empty if unknown
  absl::string_view file;  // source file; empty if unknown
  uint64_t line = 0;       // source line; 0 if unknown
};

class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Symbolizes return address `pc` of a module mapped with load bias `bias` (an address
  // in the ELF file is pc - bias) from the file `path` whose build ID, as lowercase hex,
  // is `build_id` ("" = not recorded, not checked). The call instruction's line is
  // looked up (pc - 1). Views stay valid for the life of the Symbolizer. Where the call
  // is in a function inlined into another, this is the inlined function (the innermost
  // entry of LookupFrames).
  SymbolInfo Lookup(absl::string_view path, absl::string_view build_id, uint64_t bias, uint64_t pc);

  // The functions the call at return address `pc` is in, innermost first, as the module's
  // DWARF tells its inline chain: each inlined function with its own file and line, then
  // the function it was inlined into with the line of the inlined call, out to the
  // function the code belongs to (named from the symbol table). One entry when nothing is
  // inlined there or the file has no inline information; empty when the module cannot be
  // used. Valid for the life of the Symbolizer.
  absl::Span<const SymbolInfo> LookupFrames(absl::string_view path, absl::string_view build_id,
                                            uint64_t bias, uint64_t pc);

  // `name` demangled if it is a mangled C++ name (a view kept by the Symbolizer), else
  // `name` itself.
  absl::string_view Demangled(absl::string_view name);

 private:
  struct Module;
  Module* FindModule(absl::string_view path, absl::string_view build_id, uint64_t bias);
  absl::string_view Keep(std::string text);
  // The inline chain of `address` (pc - 1) in `module`, innermost first, into `chain`;
  // `outer` (the symbol table's function and the line table's position) completes it.
  void InlineChain(Module& module, uint64_t address, const SymbolInfo& outer,
                   std::vector<SymbolInfo>* chain);

  // Keyed by path, build ID and bias; nullptr values are modules that cannot be used.
  absl::flat_hash_map<std::string, std::unique_ptr<Module>> modules_;
  // By module key and pc: the inline chain, innermost first (see LookupFrames).
  absl::flat_hash_map<std::string, std::vector<SymbolInfo>> cache_;
  std::deque<std::string> strings_;                     // storage of the views handed out
  absl::flat_hash_map<std::string, absl::string_view> interned_;
};

// A `module` record of a generation's stack table (views into its string table).
struct ModuleRecord {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t bias = 0;
  absl::string_view path;
  absl::string_view build_id;
};

// The modules of one generation, and the symbolization of its stack frames through them.
class FrameSymbolizer {
 public:
  // Forgets the modules (the symbolizer's cache stays).
  void ClearModules() {
    modules_.clear();
    sorted_ = true;
  }
  // Adds a module record (its views must outlive the Symbolize calls).
  void AddModule(const ModuleRecord& module) {
    modules_.push_back(module);
    sorted_ = false;
  }
  // Appends the symbolized form of `frame` to `out`: its module and module_offset from the
  // module holding its pc (the one with the greatest start at or below pc whose range
  // holds it; the later record among equal starts), and its func, file and line where the
  // module's file tells them; a func the trace already had is kept (demangled) where the
  // file does not tell one. A call inside inlined code becomes one frame per function of
  // its inline chain (Symbolizer::LookupFrames), innermost first, all with the frame's pc.
  void Symbolize(const SymbolFrame& frame, std::vector<SymbolFrame>* out);

 private:
  std::vector<ModuleRecord> modules_;
  bool sorted_ = true;
  Symbolizer symbolizer_;
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_SYMBOLIZER_H_
