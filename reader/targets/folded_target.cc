#include "reader/targets/folded_target.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reader/track_model.h"

namespace tracewire::targets {
namespace {

using reader::Event;
using reader::EventKind;

// Appends `text` with the characters that would break a folded line replaced.
void AppendClean(absl::string_view text, std::string* out) {
  const size_t start = out->size();
  out->append(text.data(), text.size());  // one append, then the (rare) replacements
  std::replace_if(
      out->begin() + start, out->end(), [](char c) { return c == ';' || c == '\n' || c == '\r'; },
      '_');
}

absl::string_view Basename(absl::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == absl::string_view::npos ? path : path.substr(slash + 1);
}

// Appends the folded-format name of `frame` (FoldedFrameName) to *out.
void AppendFrameName(const reader::SymbolFrame& frame, std::string* out) {
  if (!frame.func.empty()) {
    AppendClean(frame.func, out);
  } else if (!frame.module.empty()) {
    AppendClean(Basename(frame.module), out);
    absl::StrAppendFormat(out, "+0x%x", frame.module_offset);
  } else {
    absl::StrAppendFormat(out, "0x%x", frame.pc);
  }
}

class FoldedFormatter : public Formatter, public reader::TrackListener {
 public:
  explicit FoldedFormatter(bool regions) : regions_(regions) {}

  void Write(const Event& e, std::string* out) override {
    if (!regions_ && e.kind != EventKind::kCpuSample) return;  // no model needed
    if (!regions_) {
      AddStack({}, e);
      return;
    }
    model_.Add(e, *this);
  }

  // Write writes nothing (Finish writes every line from the counts): all of it is state,
  // so skipping an event is writing it, at the same cost. skips_cheaply() stays false: a
  // decode in stripes would make every worker count every sample.
  void Skip(const Event& e) override { Write(e, nullptr); }

  void Finish(std::string* out) override {
    std::vector<const std::pair<const std::string, uint64_t>*> lines;
    lines.reserve(stacks_.size());
    for (const auto& line : stacks_) lines.push_back(&line);
    std::sort(lines.begin(), lines.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    for (const auto* line : lines) absl::StrAppend(out, line->first, " ", line->second, "\n");
    stacks_.clear();
    model_ = reader::TrackModel();
    region_names_.clear();
  }

  // TrackListener.
  void OnSliceBegin(const reader::Slice& slice, const Event& e) {
    if (slice.kind != reader::SliceKind::kRegion) return;
    if (region_names_.size() <= slice.slot) region_names_.resize(slice.slot + 1);
    std::string& name = region_names_[slice.slot];
    name = "region:";
    AppendClean(e.category, &name);
    name.push_back('/');
    AppendClean(e.label, &name);
  }
  void OnSample(const Event& e, const reader::SampleContext& at) { AddStack(at.regions, e); }

 private:
  void AddStack(absl::Span<const reader::Slice> regions, const Event& e) {
    line_.clear();
    for (const reader::Slice& region : regions) {
      if (!line_.empty()) line_.push_back(';');
      line_ += region_names_[region.slot];
    }
    for (size_t i = e.stack.size(); i-- > 0;) {
      if (!line_.empty()) line_.push_back(';');
      AppendFrameName(e.stack[i], &line_);
    }
    stacks_[line_] += e.count;
  }

  const bool regions_;
  reader::TrackModel model_;
  std::vector<std::string> region_names_;              // by slot
  absl::flat_hash_map<std::string, uint64_t> stacks_;  // line -> weight (sorted by Finish)
  std::string line_;
};

}  // namespace

std::string FoldedFrameName(const reader::SymbolFrame& frame) {
  std::string name;
  AppendFrameName(frame, &name);
  return name;
}

std::unique_ptr<Formatter> MakeFoldedFormatter(const FormatterOptions& options) {
  return std::make_unique<FoldedFormatter>(options.folded_regions);
}

}  // namespace tracewire::targets
