// The SQL functions `tracewire query` adds to SQLite's own:
//   percentile(value, p)  aggregate: the p-th percentile (0 <= p <= 100) of the non-NULL
//                         values of the group, interpolated linearly between the two
//                         nearest values (as numpy's default and SQLite's percentile
//                         extension); NULL for a group without values. p must be the same
//                         for every row of a group.
#ifndef TRACEWIRE_TOOLS_QUERY_SQL_FUNCTIONS_H_
#define TRACEWIRE_TOOLS_QUERY_SQL_FUNCTIONS_H_

#include <vector>

#include "absl/status/status.h"
#include "tools/query/sqlite_database.h"

namespace tracewire::tools::query {

// Registers the functions on `db`.
absl::Status RegisterSqlFunctions(SqliteDatabase* db);

// The p-th percentile of `values` (reordered), linearly interpolated; `values` must not be
// empty and 0 <= p <= 100.
double Percentile(std::vector<double>& values, double p);

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_SQL_FUNCTIONS_H_
