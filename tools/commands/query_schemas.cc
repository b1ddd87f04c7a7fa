#include "tools/commands/query_schemas.h"

#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace tracewire::tools {

std::optional<std::pair<std::string, std::string>> NamedInput(const std::string& argument) {
  const size_t eq = argument.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == argument.size()) return std::nullopt;
  const std::string name = argument.substr(0, eq);
  if (!absl::ascii_isalpha(name[0]) && name[0] != '_') return std::nullopt;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '_') return std::nullopt;
  }
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "main" || lower == "temp") return std::nullopt;
  std::error_code error;
  if (std::filesystem::exists(argument, error)) return std::nullopt;  // a path with a '='
  return std::pair{name, argument.substr(eq + 1)};
}

absl::Status LoadNamedInput(query::SqliteDatabase* db, const std::string& name,
                            const std::string& path, const query::LoadOptions& options,
                            query::LoadSummary* summary) {
  absl::StatusOr<std::unique_ptr<query::SqliteDatabase>> own =
      query::SqliteDatabase::Open("", options.cache_bytes);
  if (!own.ok()) return own.status();
  {
    query::Loader loader(own->get());
    absl::Status s = loader.CreateSchema();
    if (s.ok()) s = loader.Load(path, options, summary);
    if (s.ok()) s = loader.Finish();
    if (!s.ok()) return s;
  }
  // The connection allows no attached database (the user's SQL may attach none): one more
  // for this schema, up to SQLite's limit of 10.
  const int attached = sqlite3_limit(db->handle(), SQLITE_LIMIT_ATTACHED, -1);
  sqlite3_limit(db->handle(), SQLITE_LIMIT_ATTACHED, attached + 1);
  // A temporary database of its own (on disk but for SQLite's default cache of a few MB),
  // filled with a copy of the loaded database's pages.
  if (absl::Status s = db->Execute(absl::StrCat("ATTACH '' AS \"", name, "\"")); !s.ok()) {
    return absl::InternalError(absl::StrCat("cannot attach schema ", name, ": ", s.message()));
  }
  sqlite3_backup* backup =
      sqlite3_backup_init(db->handle(), name.c_str(), (*own)->handle(), "main");
  if (backup == nullptr) {
    return absl::InternalError(absl::StrCat(name, "=", path, ": ", db->LastError()));
  }
  const int rc = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) {
    return absl::InternalError(
        absl::StrCat(name, "=", path, ": cannot copy the loaded database: ", sqlite3_errstr(rc)));
  }
  return absl::OkStatus();
}

}  // namespace tracewire::tools
