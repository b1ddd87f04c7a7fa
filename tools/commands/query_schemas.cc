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
  absl::StatusOr<std::unique_ptr<query::SqliteDatabase>> own = query::SqliteDatabase::Open("");
  if (!own.ok()) return own.status();
  {
    query::Loader loader(own->get());
    absl::Status s = loader.CreateSchema();
    if (s.ok()) s = loader.Load(path, options, summary);
    if (s.ok()) s = loader.Finish();
    if (!s.ok()) return s;
  }
  // The loaded database's image, attached as `name` (a fresh in-memory schema filled with
  // it; SQLite frees the image with the connection).
  sqlite3_int64 size = 0;
  unsigned char* image = sqlite3_serialize((*own)->handle(), "main", &size, 0);
  if (image == nullptr) {
    return absl::InternalError(absl::StrCat(name, "=", path, ": cannot copy the loaded database"));
  }
  // The connection allows no attached database (the user's SQL may attach none): one more
  // for this schema, up to SQLite's limit of 10.
  const int attached = sqlite3_limit(db->handle(), SQLITE_LIMIT_ATTACHED, -1);
  sqlite3_limit(db->handle(), SQLITE_LIMIT_ATTACHED, attached + 1);
  if (absl::Status s = db->Execute(absl::StrCat("ATTACH ':memory:' AS \"", name, "\"")); !s.ok()) {
    sqlite3_free(image);
    return absl::InternalError(absl::StrCat("cannot attach schema ", name, ": ", s.message()));
  }
  const int rc =
      sqlite3_deserialize(db->handle(), name.c_str(), image, size, size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
  if (rc != SQLITE_OK) {
    return absl::InternalError(absl::StrCat(name, "=", path, ": ", db->LastError()));
  }
  return absl::OkStatus();
}

}  // namespace tracewire::tools
