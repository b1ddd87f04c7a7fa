// The tables of `tracewire query`, in the order their schema is created (docs/cli.md
// documents each; views come last, as they read the tables).
#ifndef TRACEWIRE_TOOLS_QUERY_TABLE_LIST_H_
#define TRACEWIRE_TOOLS_QUERY_TABLE_LIST_H_

#include <memory>
#include <vector>

#include "tools/query/load_context.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {

// One writer of each table file, sharing `context`.
std::vector<std::unique_ptr<TableWriter>> MakeTableWriters(LoadContext* context);

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_TABLE_LIST_H_
