#include "tools/commands/diff_command.h"

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tools/cli/command_line.h"
#include "tools/cli/usage.h"
#include "tools/commands/diff.h"
#include "tools/commands/formatter_flags.h"
#include "tools/commands/shared_flags.h"

ABSL_FLAG(std::string, only, "", "diff: the kinds of keys to compare (regions,tasks,...)");
ABSL_FLAG(int64_t, min_count, 0, "diff: keys with fewer instances on a side are left out");
ABSL_FLAG(std::string, fail_if, "", "diff: exit 5 if a condition holds (p95>+10%,errors>0)");
// --base and --new take lists of arguments, which the command's parser reads (ParseDiff);
// the flags name them for the help and the list of accepted flags.
ABSL_FLAG(std::string, base, "", "diff: the runs of BASE (one or more FILE or DIR follow)");
ABSL_FLAG(std::string, new, "", "diff: the runs of NEW (one or more FILE or DIR follow)");
ABSL_FLAG(double, alpha, 0.05, "diff: false discovery rate of the significant changes");
ABSL_FLAG(double, min_change, 10, "diff: the smallest change (%) called significant");

namespace tracewire::tools {
namespace {

// The help of `tracewire diff`.
constexpr char kHelp[] =
    "usage: tracewire diff [--format=table|json|csv|markdown|folded] [--only=KINDS]\n"
    "                      [--min-count=N] [--fail-if=EXPR] [--alpha=0.05]\n"
    "                      [--min-change=10] [--regions]\n"
    "                      BASE NEW [-o OUT]\n"
    "       tracewire diff [flags] --base BASE... --new NEW...\n"
    "\n"
    "Compares two sides, each one or several runs of a workload, key by key: regions\n"
    "(category/label, per command), tasks, commands (wall time), child processes, timers,\n"
    "counters, gauges (mean and last), functions' shares of the CPU samples (self and\n"
    "total) and errors. A side is a trace FILE, a DIR of one run's files (a process tree or\n"
    "a fleet, as `decode DIR` reads it), a DIR whose entries are all directories (one run\n"
    "each), or several of these after --base / --new. For each key it prints both sides'\n"
    "p50 (durations) or mean (the others), the relative change with a 95% bootstrap\n"
    "interval, and a verdict: slower/faster when the change is significant (Mann-Whitney U\n"
    "over the instances and Welch's t over the logs of the per-run totals, or with one run\n"
    "a side of 5 time-ordered blocks' p50s; Benjamini-Hochberg over all keys) and at least\n"
    "--min-change, new, gone, or same. Significant changes come first; record 5 or more\n"
    "runs a side to measure run-to-run noise.\n"
    "\n"
    "Flags:\n"
    "  --format=F      table (default), json, csv, markdown, or folded: the CPU samples of\n"
    "                  both sides as 'stack base_weight new_weight' lines (difffolded)\n"
    "  --only=KINDS    comma-separated: regions, tasks, commands, children, timers,\n"
    "                  counters, gauges, functions, errors\n"
    "  --min-count=N   leave out keys with fewer than N instances on a side they are on\n"
    "  --fail-if=EXPR  exit 5 if a significant change meets a condition: STAT>+P% or\n"
    "                  STAT<-P% (STAT: count, total, mean, p50, p95, p99), or errors>N\n"
    "                  (N more error events per run); conditions separated by ','\n"
    "  --alpha=A       false discovery rate (default 0.05)\n"
    "  --min-change=P  a change smaller than P% is never significant (default 10)\n"
    "  --regions       folded: start each stack with the regions open on its thread\n"
    "  -o OUT          write to OUT (default stdout)\n"
    "\n"
    "Exit codes: 0 success; 1 a side had no events, or a run could not be read (the rest\n"
    "is compared); 2 usage or I/O error; 4 files of a run's DIR were skipped; 5 --fail-if\n"
    "met.\n";

bool IsFlagWord(const std::string& word) { return word.size() > 1 && word[0] == '-'; }

// Takes --base and --new with their lists of arguments out of the words (each runs to
// the next flag); the rest is parsed as usual.
absl::StatusOr<CommandLine> ParseDiff(const Command& command, absl::Span<const std::string> words) {
  std::vector<std::string> rest;
  std::vector<std::pair<std::string, std::string>> sides;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    std::string side;
    for (const char* name : {"base", "new"}) {
      for (const char* dashes : {"--", "-"}) {
        const std::string flag = std::string(dashes) + name;
        if (word == flag || absl::StartsWith(word, flag + "=")) side = name;
      }
    }
    if (side.empty() || word == "--") {
      if (word == "--") {
        rest.insert(rest.end(), words.begin() + i, words.end());
        break;
      }
      rest.push_back(word);
      continue;
    }
    if (const size_t eq = word.find('='); eq != std::string::npos) {
      sides.emplace_back(side, word.substr(eq + 1));
    }
    while (i + 1 < words.size() && !IsFlagWord(words[i + 1])) sides.emplace_back(side, words[++i]);
  }
  absl::StatusOr<CommandLine> line = ParseCommandLine(rest, command.flags);
  if (!line.ok()) return line;
  for (auto& [side, value] : sides) {
    line->specified.insert(side);
    line->values.emplace_back(side, value);
  }
  return line;
}

int RunDiffCommand(const Command& command, const CommandLine& line) {
  DiffRequest request;
  request.base = line.All("base");
  request.now = line.All("new");
  if (line.Has("base") || line.Has("new")) {
    if (request.base.empty() || request.now.empty()) {
      return UsageError(command, "--base and --new each expect one or more FILE or DIR");
    }
    if (!line.positional.empty()) {
      return UsageError(command, "expects BASE NEW, or --base and --new, not both");
    }
  } else {
    if (line.positional.size() != 2) return UsageError(command, "expects BASE and NEW");
    request.base = {line.positional[0]};
    request.now = {line.positional[1]};
  }
  for (const std::string& path : request.base) {
    if (path == "-") return UsageError(command, "reads no stdin: name files or directories");
  }
  for (const std::string& path : request.now) {
    if (path == "-") return UsageError(command, "reads no stdin: name files or directories");
  }
  const std::string format = line.Has("format") ? absl::GetFlag(FLAGS_format) : "table";
  if (format == "folded") {
    request.folded = true;
    request.folded_regions = absl::GetFlag(FLAGS_regions);
    for (const char* flag : {"only", "min_count", "fail_if", "alpha", "min_change"}) {
      if (line.Has(flag)) {
        return UsageError(command, std::string("--") + flag + " does nothing for --format=folded");
      }
    }
  } else if (std::optional<DiffFormat> f = DiffFormatByName(format)) {
    request.format = *f;
    if (line.Has("regions")) return UsageError(command, "--regions is for --format=folded only");
  } else {
    return UsageError(command, "--format must be table, json, csv, markdown or folded");
  }
  for (absl::string_view group :
       absl::StrSplit(absl::GetFlag(FLAGS_only), ',', absl::SkipWhitespace())) {
    if (!IsDiffGroup(group)) {
      return UsageError(command, "--only: unknown kind '" + std::string(group) + "'");
    }
    request.filter.groups.insert(std::string(group));
  }
  const int64_t min_count = absl::GetFlag(FLAGS_min_count);
  if (min_count < 0) return UsageError(command, "--min-count must be >= 0");
  request.filter.min_count = static_cast<uint64_t>(min_count);
  const double alpha = absl::GetFlag(FLAGS_alpha);
  if (!(alpha > 0 && alpha < 1)) return UsageError(command, "--alpha must be between 0 and 1");
  request.compare.alpha = alpha;
  const double min_change = absl::GetFlag(FLAGS_min_change);
  if (!(min_change >= 0 && min_change < 1e6)) {
    return UsageError(command, "--min-change must be a percentage >= 0");
  }
  request.compare.min_change = min_change / 100;
  if (line.Has("fail_if")) {
    absl::StatusOr<std::vector<GateCondition>> gate = ParseFailIf(absl::GetFlag(FLAGS_fail_if));
    if (!gate.ok()) return UsageError(command, gate.status().message());
    request.gate = *std::move(gate);
  }
  request.output = absl::GetFlag(FLAGS_o);
  return Diff(request);
}

}  // namespace

const Command& DiffCommand() {
  static const Command* const command = new Command{
      .name = "diff",
      .summary = "compare two runs or sets of runs: what got slower, with the noise measured",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_format), FlagOf(FLAGS_only), FlagOf(FLAGS_min_count),
                FlagOf(FLAGS_fail_if), FlagOf(FLAGS_alpha), FlagOf(FLAGS_min_change),
                FlagOf(FLAGS_regions), FlagOf(FLAGS_o), FlagOf(FLAGS_base), FlagOf(FLAGS_new)},
      .parse = ParseDiff,
      .run = RunDiffCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
