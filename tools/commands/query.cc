#include "tools/commands/query.h"

#include <unistd.h>

#include <cstdio>
#include <memory>

#include "tools/cli/exit_codes.h"
#include "tools/cli/trace_input.h"
#include "tools/commands/query_schemas.h"
#include "tools/query/loader.h"
#include "tools/query/query_shell.h"
#include "tools/query/result_format.h"
#include "tools/query/sql_functions.h"
#include "tools/query/sqlite_database.h"

namespace tracewire::tools {
namespace {

int Fail(const absl::Status& status, int code) {
  std::fprintf(stderr, "tracewire query: %s\n", std::string(status.message()).c_str());
  return code;
}

// The exit code of a failed load: trace faults 1, everything else (I/O, usage,
// database) 2.
int LoadFailure(const absl::Status& status) {
  if (status.code() == absl::StatusCode::kInternal || IsIoError(status)) {
    return Fail(status, kExitUsage);
  }
  std::fprintf(stderr, "tracewire query: invalid trace: %s (--salvage loads the rest)\n",
               std::string(status.message()).c_str());
  return kExitInvalid;
}

}  // namespace

int Query(const QueryOptions& options) {
  absl::StatusOr<query::ResultFormat> format = query::ParseResultFormat(options.format);
  if (!format.ok()) return Fail(format.status(), kExitUsage);
  absl::StatusOr<std::unique_ptr<query::SqliteDatabase>> db =
      query::SqliteDatabase::Open(options.db_path, options.cache_bytes);
  if (!db.ok()) return Fail(db.status(), kExitUsage);
  if (absl::Status s = query::RegisterSqlFunctions(db->get()); !s.ok()) {
    return Fail(s, kExitUsage);
  }

  query::LoadSummary summary;
  absl::Status loaded;
  {
    query::Loader loader(db->get());
    loaded = loader.CreateSchema();
    query::LoadOptions load;
    load.salvage = options.salvage;
    load.jobs = options.jobs;
    load.db_path = options.db_path;
    load.cache_bytes = options.cache_bytes;
    for (const std::string& input : options.inputs) {
      if (!loaded.ok()) break;
      if (const auto named = NamedInput(input)) {
        loaded = LoadNamedInput(db->get(), named->first, named->second, load, &summary);
      } else {
        loaded = loader.Load(input, load, &summary);
      }
    }
    if (loaded.ok()) loaded = loader.Finish();
  }
  if (!loaded.ok()) {
    // A --db file that was not loaded to its end is removed: it would look complete.
    db->reset();
    if (!options.db_path.empty()) unlink(options.db_path.c_str());
    return LoadFailure(loaded);
  }
  (*db)->LockDown();

  query::ResultWriter writer(*format, stdout);
  query::QueryShell shell(db->get(), &writer);
  absl::Status status;
  if (!options.statements.empty()) {
    for (const std::string& sql : options.statements) {
      status = shell.Run(sql);
      if (!status.ok()) break;
    }
  } else if (options.db_path.empty()) {
    status = shell.RunInput(stdin, isatty(STDIN_FILENO) == 1);
  }
  if (!status.ok()) {
    const bool sql = status.code() == absl::StatusCode::kInvalidArgument;
    std::fprintf(stderr, "tracewire query: %s%s\n", sql ? "SQL error: " : "",
                 std::string(status.message()).c_str());
    return kExitUsage;
  }
  if (std::fflush(stdout) != 0) return kExitUsage;
  if (summary.lost) return kExitInvalid;
  return summary.skipped ? kExitSkipped : kExitOk;
}

}  // namespace tracewire::tools
