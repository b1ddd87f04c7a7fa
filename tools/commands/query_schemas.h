// Named inputs of `tracewire query`: NAME=PATH loads PATH into a schema of its own, NAME,
// of the same database (base.slice, new.slice, ...), so that two runs or fleets can be
// compared in one SQL statement. The command attaches the schemas before the lockdown;
// the user's SQL still cannot ATTACH.
#ifndef TRACEWIRE_TOOLS_COMMANDS_QUERY_SCHEMAS_H_
#define TRACEWIRE_TOOLS_COMMANDS_QUERY_SCHEMAS_H_

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "tools/query/loader.h"
#include "tools/query/sqlite_database.h"

namespace tracewire::tools {

// (NAME, PATH) if `argument` is NAME=PATH: NAME an SQL identifier ([A-Za-z_][A-Za-z0-9_]*)
// other than main and temp, and no file or directory named `argument` exists; else nullopt.
std::optional<std::pair<std::string, std::string>> NamedInput(const std::string& argument);

// Loads `path` into a database of its own (tables and views as the main schema's), then
// attaches it to `db` as schema `name` (Internal if it cannot be attached, e.g. a name
// given twice); errors of the load as Loader::Load returns them.
absl::Status LoadNamedInput(query::SqliteDatabase* db, const std::string& name,
                            const std::string& path, const query::LoadOptions& options,
                            query::LoadSummary* summary);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_COMMANDS_QUERY_SCHEMAS_H_
