#include "tools/commands/diff.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "reader/targets/folded_target.h"
#include "tools/analysis/diff_collect.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/cli/trace_input.h"

namespace tracewire::tools {
namespace {

void Warn(const std::string& message) {
  std::fprintf(stderr, "tracewire diff: %s\n", message.c_str());
}

// How reading the runs went.
struct ReadProblems {
  bool invalid = false;  // a run could not be opened or read to its end
  bool skipped = false;  // files of a run's directory were skipped
};

// Reads the run at `path`, handing every event to `add`; warns of what could not be read.
// Salvage mode: a damaged generation is skipped and the rest read.
template <typename Add>
void ReadRun(const std::string& path, Add&& add, ReadProblems* problems) {
  reader::ReaderOptions options;
  options.salvage = true;
  absl::StatusOr<std::unique_ptr<TraceInput>> input = TraceInput::Open(path, options);
  if (!input.ok()) {
    Warn(absl::StrCat("run ", path, " not compared: ", input.status().message()));
    problems->invalid = true;
    return;
  }
  while (true) {
    absl::StatusOr<const reader::Event*> event = (*input)->Next();
    if (!event.ok()) {
      Warn(absl::StrCat(path, ": ", event.status().message(),
                        "; the events before it are compared"));
      problems->invalid = true;
      break;
    }
    if (*event == nullptr) break;
    add(**event);
  }
  for (const auto& [file, loss] : (*input)->LossReports()) {
    Warn(absl::StrCat(file, ": damaged, the rest is compared: ", loss.Summary()));
    problems->invalid = true;
  }
  if (ReportSkippedFiles("diff", **input)) problems->skipped = true;
}

DiffSide ReadSide(const std::vector<std::string>& runs, ReadProblems* problems) {
  DiffSide side;
  for (const std::string& path : runs) {
    RunCollector collector;
    ReadRun(
        path, [&](const reader::Event& e) { collector.Add(e); }, problems);
    side.runs.push_back(collector.Finish());
    side.names.push_back(path);
  }
  return side;
}

// The folded stacks of a side's runs, summed: stack -> weight.
std::map<std::string, uint64_t> FoldedSide(const std::vector<std::string>& runs, bool regions,
                                           ReadProblems* problems, uint64_t* events) {
  std::map<std::string, uint64_t> stacks;
  for (const std::string& path : runs) {
    targets::FormatterOptions options;
    options.folded_regions = regions;
    std::unique_ptr<targets::Formatter> formatter = targets::MakeFoldedFormatter(options);
    std::string text;
    ReadRun(
        path,
        [&](const reader::Event& e) {
          ++*events;
          formatter->Write(e, &text);
        },
        problems);
    formatter->Finish(&text);
    for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
      const size_t space = line.rfind(' ');
      uint64_t weight = 0;
      if (space == absl::string_view::npos || !absl::SimpleAtoi(line.substr(space + 1), &weight)) {
        continue;
      }
      stacks[std::string(line.substr(0, space))] += weight;
    }
  }
  return stacks;
}

int Write(const std::string& output, const std::string& text) {
  absl::StatusOr<std::unique_ptr<OutputFile>> file = OutputFile::Open(output);
  absl::Status status = file.ok() ? (*file)->Write(text) : file.status();
  if (status.ok()) status = (*file)->Close();
  if (!status.ok()) {
    Warn(std::string(status.message()));
    return kExitUsage;
  }
  return kExitOk;
}

std::string SideName(const std::vector<std::string>& arguments) {
  return absl::StrJoin(arguments, " ");
}

int DiffFolded(const DiffRequest& request, const std::vector<std::string>& base_runs,
               const std::vector<std::string>& new_runs) {
  ReadProblems problems;
  uint64_t base_events = 0, new_events = 0;
  const auto base = FoldedSide(base_runs, request.folded_regions, &problems, &base_events);
  const auto now = FoldedSide(new_runs, request.folded_regions, &problems, &new_events);
  std::map<std::string, std::pair<uint64_t, uint64_t>> both;
  for (const auto& [stack, weight] : base) both[stack].first = weight;
  for (const auto& [stack, weight] : now) both[stack].second = weight;
  std::string text;
  for (const auto& [stack, weights] : both) {
    absl::StrAppend(&text, stack, " ", weights.first, " ", weights.second, "\n");
  }
  if (const int code = Write(request.output, text); code != kExitOk) return code;
  for (const auto& [name, events] : {std::pair{SideName(request.base), base_events},
                                     std::pair{SideName(request.now), new_events}}) {
    if (events == 0) {
      Warn(absl::StrCat(name, ": no events"));
      problems.invalid = true;
    }
  }
  if (problems.invalid) return kExitInvalid;
  return problems.skipped ? kExitSkipped : kExitOk;
}

}  // namespace

std::vector<std::string> RunsOf(const std::vector<std::string>& arguments) {
  std::vector<std::string> runs;
  for (const std::string& argument : arguments) {
    std::error_code error;
    std::vector<std::string> subdirectories;
    bool only_directories = std::filesystem::is_directory(argument, error);
    if (only_directories) {
      for (const auto& entry : std::filesystem::directory_iterator(argument, error)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        if (!entry.is_directory(error)) {
          only_directories = false;
          break;
        }
        subdirectories.push_back(entry.path().string());
      }
    }
    if (!only_directories || subdirectories.empty()) {
      runs.push_back(argument);
      continue;
    }
    std::sort(subdirectories.begin(), subdirectories.end());
    runs.insert(runs.end(), subdirectories.begin(), subdirectories.end());
  }
  return runs;
}

int Diff(const DiffRequest& request) {
  const std::vector<std::string> base_runs = RunsOf(request.base);
  const std::vector<std::string> new_runs = RunsOf(request.now);
  if (absl::Status s = CheckOutputIsNotAnInput(request.output, base_runs); !s.ok()) {
    Warn(std::string(s.message()));
    return kExitUsage;
  }
  if (absl::Status s = CheckOutputIsNotAnInput(request.output, new_runs); !s.ok()) {
    Warn(std::string(s.message()));
    return kExitUsage;
  }
  if (request.folded) return DiffFolded(request, base_runs, new_runs);

  ReadProblems problems;
  const DiffSide base = ReadSide(base_runs, &problems);
  const DiffSide now = ReadSide(new_runs, &problems);
  DiffHeading heading;
  heading.base_name = SideName(request.base);
  heading.new_name = SideName(request.now);
  heading.base_runs = base.runs.size();
  heading.new_runs = now.runs.size();
  heading.base_events = base.events();
  heading.new_events = now.events();
  heading.alpha = request.compare.alpha;
  heading.confidence = request.compare.confidence;
  for (const auto& [name, side, other] :
       {std::tuple{heading.base_name, &base, "new"}, std::tuple{heading.new_name, &now, "gone"}}) {
    if (side->events() == 0) {
      Warn(absl::StrCat(name, ": no events; every key of the other side is ", other));
      problems.invalid = true;
    }
  }
  // Commands that do not meet: the two sides traced different programs.
  std::set<std::string> base_commands, new_commands;
  for (const RunValues& run : base.runs)
    base_commands.insert(run.commands.begin(), run.commands.end());
  for (const RunValues& run : now.runs)
    new_commands.insert(run.commands.begin(), run.commands.end());
  if (!base_commands.empty() && !new_commands.empty() &&
      std::none_of(base_commands.begin(), base_commands.end(),
                   [&](const std::string& c) { return new_commands.contains(c); })) {
    Warn(
        absl::StrCat("the sides ran different commands (base: ", absl::StrJoin(base_commands, ", "),
                     "; new: ", absl::StrJoin(new_commands, ", "),
                     "): their regions are keyed by command and do not meet"));
  }

  std::vector<KeyDiff> diffs = CompareSides(base, now, request.compare);
  diffs.erase(std::remove_if(diffs.begin(), diffs.end(),
                             [&](const KeyDiff& d) { return !request.filter.Keep(d); }),
              diffs.end());
  if (const int code = Write(request.output, RenderDiff(diffs, heading, request.format));
      code != kExitOk) {
    return code;
  }
  if (!request.gate.empty()) {
    const std::vector<std::string> failures = GateFailures(diffs, request.gate);
    for (const std::string& failure : failures) Warn(absl::StrCat("--fail-if ", failure));
    if (!failures.empty()) return kExitRegression;
  }
  if (problems.invalid) return kExitInvalid;
  return problems.skipped ? kExitSkipped : kExitOk;
}

}  // namespace tracewire::tools
