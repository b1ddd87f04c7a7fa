#include "tools/commands/report.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "tools/analysis/report_html.h"
#include "tools/analysis/report_model.h"
#include "tools/cli/event_loop.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/cli/progress.h"
#include "tools/cli/trace_input.h"

namespace tracewire::tools {
namespace {

void PrintError(const absl::Status& status) {
  std::fprintf(stderr, "tracewire report: %s\n", std::string(status.message()).c_str());
}

}  // namespace

int Report(const std::string& input_path, const std::string& output_path) {
  absl::StatusOr<std::unique_ptr<TraceInput>> input = TraceInput::Open(input_path, {});
  if (!input.ok()) {
    PrintError(input.status());
    return kExitUsage;
  }
  ReportModel model;
  absl::Status trace_error;
  {
    Progress progress("report");
    uint64_t events = 0;
    trace_error = ReadEvents(
        input->get(), &progress,
        [&](const reader::Event& event) {
          model.Add(event);
          return true;
        },
        &events);
  }
  model.Finish();
  ReportHtmlOptions options;
  options.trace_name = input_path;
  if (!trace_error.ok()) {
    options.warning = absl::StrCat("The trace is damaged; this report shows the events before ",
                                   "the damage. ", trace_error.message());
  } else if (const std::vector<SkippedFile> skipped = (*input)->SkippedFiles(); !skipped.empty()) {
    options.warning = absl::StrCat(skipped.size(), " of ", (*input)->files().size(),
                                   " trace files could not be read and are not shown:");
    for (const SkippedFile& file : skipped)
      absl::StrAppend(&options.warning, " ", file.status.message(), ".");
  }
  absl::StatusOr<std::unique_ptr<OutputFile>> output = OutputFile::Open(output_path);
  if (!output.ok()) {
    PrintError(output.status());
    return kExitUsage;
  }
  *(*output)->buffer() = RenderReportHtml(model, options);
  if (absl::Status s = (*output)->Close(); !s.ok()) {
    PrintError(s);
    return kExitUsage;
  }
  if (!trace_error.ok()) {
    PrintError(trace_error);
    return IsIoError(trace_error) ? kExitUsage : kExitInvalid;
  }
  return ReportSkippedFiles("report", **input) ? kExitSkipped : kExitOk;
}

}  // namespace tracewire::tools
