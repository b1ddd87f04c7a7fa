#include "tools/commands/query_command.h"

#include <set>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "tools/cli/usage.h"
#include "tools/commands/formatter_flags.h"
#include "tools/commands/listen.h"
#include "tools/commands/query.h"
#include "tools/commands/query_schemas.h"
#include "tools/commands/shared_flags.h"

ABSL_FLAG(std::string, c, "", "query: an SQL statement to run (repeatable)");
ABSL_FLAG(std::string, db, "", "query: write the database to this new file");
ABSL_FLAG(std::string, memory, "256M",
          "query: the database pages kept in memory (SIZE); the rest is on disk");
ABSL_DECLARE_FLAG(bool, salvage);  // decode_command.cc

namespace tracewire::tools {
namespace {

// The help of `tracewire query`.
constexpr char kHelp[] =
    "usage: tracewire query [-c SQL]... [--format=table|csv|tsv|json] [--db=FILE]\n"
    "                       [--salvage] [--jobs=N] [--memory=SIZE] [NAME=]FILE|DIR|-...\n"
    "\n"
    "Loads traces (files, directories of a fleet's traces, or stdin) into an SQLite\n"
    "database and runs SQL on it: the statements of -c, or else those read from\n"
    "stdin (with a prompt when stdin is a terminal; .tables, .schema [NAME], .help,\n"
    ".quit). Each statement prints its own result. Tables, named as Perfetto's trace\n"
    "processor names them: process, thread, slice, data, error, counter_track,\n"
    "counter, def_param, child, flow; views region_stats, command_stats, child_stats;\n"
    "the aggregate percentile(value, p). Times are nanoseconds since the Unix epoch,\n"
    "durations nanoseconds (docs/cli.md documents every column).\n"
    "\n"
    "Flags:\n"
    "  -c SQL       run SQL (one or more statements; repeatable, in order)\n"
    "  --format=F   table (aligned columns, the default), csv, tsv or json\n"
    "  --db=FILE    build the database in FILE, a new file (refused if it exists),\n"
    "               for sqlite3, Python or any SQLite client; without -c nothing is\n"
    "               read from stdin\n"
    "  --salvage    do not stop at damage: load every complete generation and report\n"
    "               what was lost on stderr\n"
    "  --jobs=N     decode generations ahead on N threads (default 1: the reading\n"
    "               thread decodes; the database is loaded on one thread, and handing\n"
    "               decoded events over costs more than it saves; 0: one per core)\n"
    "  --memory=SIZE  the database's pages kept in memory (default 256M; K, M, G):\n"
    "               past it the database is in a temporary file (deleted at exit)\n"
    "\n"
    "NAME=PATH loads PATH into a schema of its own, NAME (an SQL identifier): its tables\n"
    "are NAME.slice, NAME.process, ..., so that runs can meet in one statement:\n"
    "  tracewire query base=DIR_A new=DIR_B -c 'SELECT ... FROM base.slice ...'\n"
    "\n"
    "SQL cannot reach outside the database: ATTACH, DETACH, VACUUM INTO, extension\n"
    "loading and pragmas that name files are refused.\n"
    "\n"
    "Exit codes: 0 success; 1 invalid trace (nothing is run), or data lost with\n"
    "--salvage; 2 usage, I/O, SQL or database error; 4 files of a DIR that could not\n"
    "be read were skipped (each named on stderr; the others are loaded).\n";

int RunQueryCommand(const Command& command, const CommandLine& line) {
  if (line.positional.empty()) return UsageError(command, "expects at least one FILE, DIR or -");
  QueryOptions options;
  options.inputs = line.positional;
  options.statements = line.All("c");
  if (line.Has("format")) options.format = absl::GetFlag(FLAGS_format);
  options.db_path = absl::GetFlag(FLAGS_db);
  if (line.Has("db") && options.db_path.empty())
    return UsageError(command, "--db needs a file name");
  options.salvage = absl::GetFlag(FLAGS_salvage);
  options.jobs = line.Has("jobs") ? absl::GetFlag(FLAGS_jobs) : 1;
  if (options.jobs < 0) return UsageError(command, "--jobs must be >= 0");
  absl::StatusOr<size_t> memory = ParseByteSize(absl::GetFlag(FLAGS_memory));
  if (!memory.ok() || *memory < (size_t{1} << 20)) {
    return UsageError(command, "--memory must be a size of at least 1M (e.g. 256M, 2G)");
  }
  options.cache_bytes = *memory;
  if (options.format != "table" && options.format != "csv" && options.format != "tsv" &&
      options.format != "json") {
    return UsageError(command, "--format must be table, csv, tsv or json");
  }
  int stdin_inputs = 0;
  std::set<std::string> names;
  for (const std::string& input : options.inputs) {
    const auto named = NamedInput(input);
    stdin_inputs += (named ? named->second : input) == "-";
    if (!named) continue;
    if (!names.insert(absl::AsciiStrToLower(named->first)).second) {
      return UsageError(command, "input name '" + named->first + "' given twice");
    }
    if (line.Has("db")) return UsageError(command, "--db holds no named inputs (NAME=PATH)");
  }
  if (stdin_inputs > 1) return UsageError(command, "stdin (-) can be read once");
  if (stdin_inputs == 1 && options.statements.empty() && options.db_path.empty()) {
    return UsageError(command, "reading the trace from stdin (-) needs -c SQL");
  }
  return Query(options);
}

}  // namespace

const Command& QueryCommand() {
  static const Command* const command = new Command{
      .name = "query",
      .summary = "load traces into SQLite and answer SQL (Perfetto-style tables)",
      .help = kHelp,
      .flags = {FlagOf(FLAGS_c), FlagOf(FLAGS_format), FlagOf(FLAGS_db), FlagOf(FLAGS_salvage),
                FlagOf(FLAGS_jobs), FlagOf(FLAGS_memory)},
      .run = RunQueryCommand,
  };
  return *command;
}

}  // namespace tracewire::tools
