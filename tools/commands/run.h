// `tracewire run [--format=perf|normal|event] [-o FILE] [--out DIR] [--] COMMAND ARGS...`:
// runs COMMAND traced and prints its events live, the way `GIT_TRACE2_PERF=1 git status`
// prints git's.
//
// It listens on a Unix socket of its own (the collector of `tracewire listen`), starts
// COMMAND with TRACEWIRE pointing at that socket and a short generation interval
// (TRACEWIRE_GENERATION_MS=100 unless set), and follows the per-process trace files the
// collector writes (DirectoryFollower): each generation of each traced process is printed
// as soon as it is complete, so COMMAND's traced children and their children show up too.
// When COMMAND ends, the processes still connected get up to 2 seconds to end, everything
// received is printed, and the exit code is COMMAND's (128 + N if a signal N killed it; 127
// or 126 if it could not be started). SIGINT and SIGQUIT are left to COMMAND (a terminal
// sends them to both); SIGTERM and SIGHUP are passed on to it.
#ifndef TRACEWIRE_TOOLS_COMMANDS_RUN_H_
#define TRACEWIRE_TOOLS_COMMANDS_RUN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "reader/targets/formatter.h"

namespace tracewire::tools {

struct RunOptions {
  std::string format = "perf";  // "perf", "normal" or "event"
  targets::FormatterOptions formatter;
  std::string output;     // "" = stderr
  std::string trace_dir;  // "" = a temporary directory, removed at the end
  std::vector<std::string> command;
  // How long processes still connected when COMMAND ends are waited for.
  absl::Duration linger = absl::Seconds(2);
};

// The flag words and the command of `tracewire run`'s arguments: flags come first, the
// first word that is neither a flag nor the value of one (or everything after "--") starts
// COMMAND. `value_flags` are the flags whose value may be the next word.
struct RunArguments {
  std::vector<std::string> flags;
  std::vector<std::string> command;
};
RunArguments SplitRunArguments(absl::Span<const std::string> args,
                               absl::Span<const absl::string_view> value_flags);

// Runs the command; returns the exit code (COMMAND's, or kExitUsage for a usage or setup
// error).
int Run(const RunOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_RUN_H_
