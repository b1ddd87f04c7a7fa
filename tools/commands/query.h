// `tracewire query`: loads traces into an SQLite database (tools/query/) and runs SQL on it.
#ifndef TRACEWIRE_TOOLS_COMMANDS_QUERY_H_
#define TRACEWIRE_TOOLS_COMMANDS_QUERY_H_

#include <cstddef>
#include <string>
#include <vector>

#include "tools/query/sqlite_database.h"

namespace tracewire::tools {

struct QueryOptions {
  std::vector<std::string> inputs;      // FILE, DIR or "-", each loaded in turn
  std::vector<std::string> statements;  // -c SQL, in order; none: read from stdin
  std::string format = "table";         // table, csv, tsv, json
  std::string db_path;                  // --db: a new database file; "" for memory
  bool salvage = false;
  int jobs = 1;                                     // decoding threads (DecodingJobs)
  size_t cache_bytes = query::kDatabaseCacheBytes;  // database pages kept in memory
};

// Loads `options.inputs` and runs the statements; returns the exit code: 0, 1 (invalid
// trace, or data lost with --salvage), 2 (usage, I/O, SQL or database error), 4 (files of
// a directory skipped).
int Query(const QueryOptions& options);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_QUERY_H_
