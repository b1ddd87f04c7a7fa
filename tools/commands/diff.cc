#include "tools/commands/diff.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
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
#include "tools/analysis/diff_html.h"
#include "tools/cli/exit_codes.h"
#include "tools/cli/output_file.h"
#include "tools/cli/trace_input.h"

namespace tracewire::tools {
namespace {

// The command whose messages these are ("diff", or "report" for report --diff).
const char* g_command = "diff";

void Warn(const std::string& message) {
  std::fprintf(stderr, "tracewire %s: %s\n", g_command, message.c_str());
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
  if (ReportSkippedFiles(g_command, **input)) problems->skipped = true;
}

// Folds the CPU samples of a run's events (as `decode --format=folded`) and adds its
// stacks' weights to a side's.
class RunFolder {
 public:
  explicit RunFolder(bool regions) {
    targets::FormatterOptions options;
    options.folded_regions = regions;
    formatter_ = targets::MakeFoldedFormatter(options);
  }
  void Add(const reader::Event& e) { formatter_->Write(e, &text_); }
  // Adds the run's stacks to `stacks` (base or new weight, by `now`).
  void Finish(bool now, DiffStacks* stacks) {
    formatter_->Finish(&text_);
    for (absl::string_view line : absl::StrSplit(text_, '\n', absl::SkipEmpty())) {
      const size_t space = line.rfind(' ');
      uint64_t weight = 0;
      if (space == absl::string_view::npos || !absl::SimpleAtoi(line.substr(space + 1), &weight)) {
        continue;
      }
      auto& weights = (*stacks)[std::string(line.substr(0, space))];
      (now ? weights.second : weights.first) += weight;
    }
  }

 private:
  std::unique_ptr<targets::Formatter> formatter_;
  std::string text_;
};

// What a side's runs are read into: the keys' values (if `keys`) and the folded stacks
// (if `stacks`).
struct SideReading {
  DiffSide side;
  uint64_t events = 0;
};

SideReading ReadSide(const std::vector<std::string>& runs, bool keys, DiffStacks* stacks, bool now,
                     bool folded_regions, ReadProblems* problems) {
  SideReading reading;
  for (const std::string& path : runs) {
    RunCollector collector;
    std::optional<RunFolder> folder;
    if (stacks != nullptr) folder.emplace(folded_regions);
    ReadRun(
        path,
        [&](const reader::Event& e) {
          ++reading.events;
          if (keys) collector.Add(e);
          if (folder) folder->Add(e);
        },
        problems);
    if (keys) reading.side.runs.push_back(collector.Finish());
    reading.side.names.push_back(path);
    if (folder) folder->Finish(now, stacks);
  }
  return reading;
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

// Warns of a side without events; true if there is one.
bool WarnIfEmpty(const std::string& name, uint64_t events, const char* other) {
  if (events > 0) return false;
  Warn(absl::StrCat(name, ": no events; every key of the other side is ", other));
  return true;
}

int DiffFolded(const DiffRequest& request, const std::vector<std::string>& base_runs,
               const std::vector<std::string>& new_runs) {
  ReadProblems problems;
  DiffStacks stacks;
  const uint64_t base_events =
      ReadSide(base_runs, false, &stacks, false, request.folded_regions, &problems).events;
  const uint64_t new_events =
      ReadSide(new_runs, false, &stacks, true, request.folded_regions, &problems).events;
  std::string text;
  for (const auto& [stack, weights] : stacks) {
    absl::StrAppend(&text, stack, " ", weights.first, " ", weights.second, "\n");
  }
  if (const int code = Write(request.output, text); code != kExitOk) return code;
  problems.invalid |= WarnIfEmpty(SideName(request.base), base_events, "new");
  problems.invalid |= WarnIfEmpty(SideName(request.now), new_events, "gone");
  if (problems.invalid) return kExitInvalid;
  return problems.skipped ? kExitSkipped : kExitOk;
}

// Reads both sides (and with `stacks`, their CPU samples) and compares them.
struct Comparison {
  DiffHeading heading;
  std::vector<KeyDiff> diffs;         // as filtered by --only and --min-count
  std::optional<KeyDiff> all_errors;  // the "*" error key, filtered or not (--fail-if errors)
  ReadProblems problems;
};

Comparison Compare(const DiffRequest& request, DiffStacks* stacks) {
  Comparison c;
  const std::vector<std::string> base_runs = RunsOf(request.base);
  const std::vector<std::string> new_runs = RunsOf(request.now);
  const SideReading base = ReadSide(base_runs, true, stacks, false, false, &c.problems);
  const SideReading now = ReadSide(new_runs, true, stacks, true, false, &c.problems);
  DiffHeading& heading = c.heading;
  heading.base_name = SideName(request.base);
  heading.new_name = SideName(request.now);
  heading.base_runs = base.side.runs.size();
  heading.new_runs = now.side.runs.size();
  heading.base_events = base.events;
  heading.new_events = now.events;
  heading.alpha = request.compare.alpha;
  heading.min_change = request.compare.min_change;
  heading.confidence = request.compare.confidence;
  c.problems.invalid |= WarnIfEmpty(heading.base_name, base.events, "new");
  c.problems.invalid |= WarnIfEmpty(heading.new_name, now.events, "gone");
  // Commands that do not meet: the two sides traced different programs.
  std::set<std::string> base_commands, new_commands;
  for (const RunValues& run : base.side.runs) {
    base_commands.insert(run.commands.begin(), run.commands.end());
  }
  for (const RunValues& run : now.side.runs) {
    new_commands.insert(run.commands.begin(), run.commands.end());
  }
  if (!base_commands.empty() && !new_commands.empty() &&
      std::none_of(base_commands.begin(), base_commands.end(),
                   [&](const std::string& cmd) { return new_commands.contains(cmd); })) {
    Warn(
        absl::StrCat("the sides ran different commands (base: ", absl::StrJoin(base_commands, ", "),
                     "; new: ", absl::StrJoin(new_commands, ", "),
                     "): their regions are keyed by command and do not meet"));
  }
  c.diffs = CompareSides(base.side, now.side, request.compare);
  for (const KeyDiff& d : c.diffs) {
    if (d.kind == DiffKind::kError && d.name == "*") c.all_errors = d;
  }
  c.diffs.erase(std::remove_if(c.diffs.begin(), c.diffs.end(),
                               [&](const KeyDiff& d) { return !request.filter.Keep(d); }),
                c.diffs.end());
  return c;
}

int ExitCode(const ReadProblems& problems) {
  if (problems.invalid) return kExitInvalid;
  return problems.skipped ? kExitSkipped : kExitOk;
}

absl::Status CheckOutput(const DiffRequest& request) {
  for (const auto* side : {&request.base, &request.now}) {
    if (absl::Status s = CheckOutputIsNotAnInput(request.output, RunsOf(*side)); !s.ok()) return s;
  }
  return absl::OkStatus();
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
  if (absl::Status s = CheckOutput(request); !s.ok()) {
    Warn(std::string(s.message()));
    return kExitUsage;
  }
  if (request.folded) return DiffFolded(request, RunsOf(request.base), RunsOf(request.now));
  const Comparison c = Compare(request, nullptr);
  if (const int code = Write(request.output, RenderDiff(c.diffs, c.heading, request.format));
      code != kExitOk) {
    return code;
  }
  if (!request.gate.empty()) {
    // Errors count whatever --only and --min-count leave out.
    std::vector<KeyDiff> gated = c.diffs;
    if (c.all_errors && std::none_of(gated.begin(), gated.end(), [](const KeyDiff& d) {
          return d.kind == DiffKind::kError && d.name == "*";
        })) {
      gated.push_back(*c.all_errors);
    }
    const std::vector<std::string> failures = GateFailures(gated, request.gate);
    for (const std::string& failure : failures) Warn(absl::StrCat("--fail-if ", failure));
    if (!failures.empty()) return kExitRegression;
  }
  return ExitCode(c.problems);
}

int DiffReport(const std::vector<std::string>& base, const std::vector<std::string>& now,
               const std::string& output) {
  g_command = "report";
  DiffRequest request;
  request.base = base;
  request.now = now;
  request.output = output;
  if (absl::Status s = CheckOutput(request); !s.ok()) {
    Warn(std::string(s.message()));
    return kExitUsage;
  }
  DiffStacks stacks;
  const Comparison c = Compare(request, &stacks);
  std::string warning;
  if (c.problems.invalid || c.problems.skipped) {
    warning =
        "Part of the input could not be read (see the messages of the command); the "
        "rest is compared.";
  }
  if (const int code = Write(output, RenderDiffHtml(stacks, c.diffs, c.heading, warning));
      code != kExitOk) {
    return code;
  }
  return ExitCode(c.problems);
}

}  // namespace tracewire::tools
