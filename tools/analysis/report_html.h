// The HTML page of `tracewire report`: one self-contained file (inline CSS and SVG, no
// script, nothing fetched) with
//   * the trace's summary and its process tree (each process linked to its section, exit
//     codes and errors highlighted);
//   * the top regions by total and by self time over the whole trace;
//   * per process: its command line, parent, exit code and errors, and an SVG timeline of
//     its threads (one row per region depth, regions as bars named after their label,
//     errors as red marks) and of its child processes (each bar links to the child's own
//     section), plus its own top regions when the trace has several processes;
//   * per process, on the same time axis: a lane per task name (a row of the tasks' spans,
//     then a row per thread that worked for them with its segments, the counts above it),
//     and a chart per gauge (its value as a step line, its samples, min, max and last
//     value, the unit in the title).
// Whatever the trace's size, each timeline row holds at most about two shapes per pixel:
// regions narrower than a pixel are drawn as one grey bar per run of them, whose tooltip
// counts them; rows deeper than 12 are left out (and counted). A lane draws overlapping
// tasks on at most 8 rows (the last takes the rest, noted, those overlapping there drawn
// as runs); a gauge with more samples than the axis has pixel columns is drawn with the
// lowest, highest and last sample of each column (at most 3 points per column), which its
// caption says; a process shows its first 64 task names and 64 gauges (the others are
// counted in a note).
#ifndef TRACEWIRE_TOOLS_ANALYSIS_REPORT_HTML_H_
#define TRACEWIRE_TOOLS_ANALYSIS_REPORT_HTML_H_

#include <string>

#include "tools/analysis/report_model.h"

namespace tracewire::tools {

struct ReportHtmlOptions {
  std::string trace_name;     // shown in the title
  // Pixels of the time axis; at most kCompactedWidth (report_model.h), the width the model
  // compacts narrow regions for.
  int timeline_width = 1000;
  size_t top = 15;            // rows of each top-regions table
  std::string warning;        // shown at the top if not empty (e.g. the trace is damaged)
};

// The page for `model` (Finish()ed).
std::string RenderReportHtml(const ReportModel& model, const ReportHtmlOptions& options);

// Appends `text` with &, <, >, " and ' escaped (invalid UTF-8 bytes become U+FFFD).
void AppendHtmlEscaped(absl::string_view text, std::string* out);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_REPORT_HTML_H_
