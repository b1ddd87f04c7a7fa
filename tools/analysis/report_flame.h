// The report's flame graphs: an SVG of a FlameGraph's call tree (callers below callees, each
// frame as wide as the weight of the samples it is in, its name, weight and share in a
// tooltip), built and drawn without recursion.
#ifndef TRACEWIRE_TOOLS_ANALYSIS_REPORT_FLAME_H_
#define TRACEWIRE_TOOLS_ANALYSIS_REPORT_FLAME_H_

#include <string>

#include "tools/analysis/report_model.h"

namespace tracewire::tools {

// Appends the SVG flame graph of `flame`, `width` pixels wide, to *out (frames narrower than
// half a pixel are left out).
void AppendFlameGraphSvg(const FlameGraph& flame, double width, std::string* out);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_REPORT_FLAME_H_
