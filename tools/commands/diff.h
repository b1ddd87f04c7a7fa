// `tracewire diff`: what changed between two sides, each one or several runs of traces
// (tools/analysis/diff_compare.h), as a table, JSON, CSV or Markdown, or the two sides'
// CPU samples as a differential folded file.
#ifndef TRACEWIRE_TOOLS_COMMANDS_DIFF_H_
#define TRACEWIRE_TOOLS_COMMANDS_DIFF_H_

#include <string>
#include <vector>

#include "tools/analysis/diff_compare.h"
#include "tools/analysis/diff_gate.h"
#include "tools/analysis/diff_output.h"

namespace tracewire::tools {

// What to compare and how to write it.
struct DiffRequest {
  // Each side's arguments: a trace file or a directory of one run's trace files is one
  // run; a directory whose entries are all directories is one run per sub-directory.
  std::vector<std::string> base, now;
  bool folded = false;          // write "stack base_weight new_weight" lines
  bool folded_regions = false;  // folded: the regions open as the first frames
  DiffFormat format = DiffFormat::kTable;
  DiffFilter filter;
  std::vector<GateCondition> gate;  // --fail-if
  CompareOptions compare;
  std::string output;  // "" or "-": stdout
};

// The runs of one side's arguments (see DiffRequest), in order; an argument that is not
// a directory of directories is a run itself.
std::vector<std::string> RunsOf(const std::vector<std::string>& arguments);

// Runs the comparison; returns the exit code: kExitRegression if the gate failed, else
// kExitInvalid if a side had no events or a run could not be read (what could be read is
// compared), kExitSkipped if files of a run's directory were skipped, else kExitOk.
int Diff(const DiffRequest& request);

// `tracewire report --diff BASE NEW`: writes the page of tools/analysis/diff_html.h for the
// two sides (each a list of arguments, as DiffRequest's) to `output` ("" or "-": stdout).
// Returns the exit code as Diff() does (no gate).
int DiffReport(const std::vector<std::string>& base, const std::vector<std::string>& now,
               const std::string& output);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_DIFF_H_
