// GenerationTables: the string, site and stack tables of one generation, resolved so that
// events can name strings, call sites and symbolized stacks by ID in O(1).
#ifndef TRACEWIRE_READER_GENERATION_TABLES_H_
#define TRACEWIRE_READER_GENERATION_TABLES_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/optimization.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "reader/event.h"
#include "reader/frame_reader.h"
#include "reader/id_table.h"
#include "reader/symbolizer.h"

namespace tracewire::reader {

// A call site with its strings resolved. Missing strings (ID 0) are empty views.
struct SiteInfo {
  absl::string_view file;
  int64_t line = 0;
  absl::string_view category;
  absl::string_view label;
  uint64_t repo = 0;  // 0 = no repo, else repo id + 1 (wire encoding)
  // Event::repo for this site (repo - 1 when repo != 0), precomputed for the hot path.
  std::optional<int64_t> event_repo;
};

class GenerationTables {
 public:
  // Replaces the tables with those of `gen`. Views point into `gen`'s payloads and into
  // this object, so both must stay alive (and `gen` unchanged) while the tables are used.
  // Errors (DataLoss) name the generation, the byte offset of the bad record and the
  // reason: duplicate IDs, ID 0, string parts without a final string, strings above
  // kMaxStringSize, sites, modules or stack frames naming strings that do not exist,
  // modules with an empty range. Stack frames are symbolized later (SymbolizeFrames).
  absl::Status Build(const RawGeneration& gen);

  // Symbolizes the stack frames of the generation (FrameSymbolizer: loads libdw and reads
  // the modules' files) the first time it is called after Build. A frame in inlined code
  // becomes one frame per function of its inline chain, so the spans FindStack gave before
  // are no longer valid: look the stack up again. Called when a filled event gets a stack,
  // so reading that does not show stacks (counting, validating) never symbolizes.
  void SymbolizeFrames() {
    if (ABSL_PREDICT_FALSE(!symbolized_)) SymbolizeFramesSlow();
  }

  // The string with `id` (never 0), or nullptr if the table has none.
  ABSL_ATTRIBUTE_ALWAYS_INLINE const absl::string_view* FindString(uint64_t id) const {
    if (ABSL_PREDICT_TRUE(id - 1 < strings_.complete_limit() - 1)) return &strings_.Get(id);
    return FindStringSlow(id);
  }
  // The site with `id`, or nullptr.
  ABSL_ATTRIBUTE_ALWAYS_INLINE const SiteInfo* FindSite(uint64_t id) const {
    if (ABSL_PREDICT_TRUE(id - 1 < sites_.complete_limit() - 1)) return &sites_.Get(id);
    return FindSiteSlow(id);
  }
  // Every string ID below this value is valid (0 = none included): see
  // IdTable::complete_limit().
  uint64_t string_limit() const { return strings_.complete_limit(); }
  // The stack with `id`; false if there is none. Its frames are as the trace recorded them
  // until SymbolizeFrames is called (which invalidates the span).
  bool FindStack(uint64_t id, absl::Span<const SymbolFrame>* stack) const {
    const std::pair<uint32_t, uint32_t>* range = stacks_.Find(id);
    if (range == nullptr) return false;
    *stack = absl::MakeConstSpan(frames_.data() + range->first, range->second);
    return true;
  }

 private:
  // Find*() outside the complete dense range (out of line).
  const absl::string_view* FindStringSlow(uint64_t id) const;
  const SiteInfo* FindSiteSlow(uint64_t id) const;
  void SymbolizeFramesSlow();
  absl::Status BuildStrings(const RawGeneration& gen);
  absl::Status BuildSitesAndStacks(const RawGeneration& gen);
  // Resolves an optional string ID of a table record; false if the ID is unknown.
  bool Resolve(uint64_t id, absl::string_view* out) const;

  IdTable<absl::string_view> strings_;
  std::deque<std::string> joined_;  // strings assembled from string_part records
  absl::flat_hash_map<uint64_t, std::string> parts_;
  IdTable<SiteInfo> sites_;
  IdTable<std::pair<uint32_t, uint32_t>> stacks_;  // (first frame, frame count)
  std::vector<SymbolFrame> frames_;
  std::vector<ModuleRecord> modules_;
  absl::flat_hash_map<uint64_t, uint64_t> module_ids_;  // module ID -> byte offset
  // Created for the first generation with stack frames; its cache outlives generations.
  std::unique_ptr<FrameSymbolizer> frame_symbolizer_;
  bool symbolized_ = true;  // false: frames_ not symbolized yet
};

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_GENERATION_TABLES_H_
