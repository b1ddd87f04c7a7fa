// The page of `tracewire report --diff`: one self-contained HTML file (inline CSS and SVG,
// no script, nothing fetched) with the two sides named, a differential flame graph of
// their CPU samples and the table of changed regions and tasks.
//
// The flame graph is drawn as the FlameGraph tools draw a difffolded file: frames as wide
// as NEW's sample weight (callers below callees, children in name order), each coloured by
// how its share of its side's samples changed: red where NEW spends a larger share there,
// blue where a smaller one, the more saturated the larger the change (light grey: none).
// Frames narrower than half a pixel are left out; at most kMaxFrames are drawn.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_DIFF_HTML_H_
#define TRACEWIRE_TOOLS_ANALYSIS_DIFF_HTML_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tools/analysis/diff_compare.h"
#include "tools/analysis/diff_output.h"

namespace tracewire::tools {

// Folded stacks ("a;b;c") with their weights on each side (base, new).
using DiffStacks = std::map<std::string, std::pair<uint64_t, uint64_t>>;

// Frames drawn at most.
inline constexpr size_t kMaxFrames = 20000;

// The page. `diffs` are every compared key (only regions and tasks are shown: the
// significant changes, new and gone ones); `warning` is shown at the top if not empty.
std::string RenderDiffHtml(const DiffStacks& stacks, const std::vector<KeyDiff>& diffs,
                           const DiffHeading& heading, const std::string& warning);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_DIFF_HTML_H_
