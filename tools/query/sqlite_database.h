// SqliteDatabase: the SQLite connection of `tracewire query` (a temporary database, or the
// file of --db), locked down for SQL typed by a user: no ATTACH or DETACH (the only file a
// query reaches is the one it was opened on), no extension loading, no VACUUM INTO or other
// pragma that names a file, defensive mode (no writes to the schema tables), untrusted
// schema. Statement: a prepared statement that a loader binds and runs row after row.
#ifndef TRACEWIRE_TOOLS_QUERY_SQLITE_DATABASE_H_
#define TRACEWIRE_TOOLS_QUERY_SQLITE_DATABASE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tracewire::tools::query {

// The memory a database keeps of its pages by default (SQLite's page cache); the rest is on
// disk.
inline constexpr size_t kDatabaseCacheBytes = size_t{256} << 20;

class SqliteDatabase {
 public:
  // Opens a new database: a private temporary one if `path` is empty (held in memory up to
  // its cache size, then in an unlinked file of the temporary directory: $SQLITE_TMPDIR,
  // $TMPDIR, /var/tmp, /usr/tmp or /tmp), else the file `path`, which must not exist yet (it
  // is created; AlreadyExists otherwise). Loading settings: no journal, no
  // syncing (a half-written database is useless anyway, and is rewritten by the next run).
  // At most `cache_bytes` of the database's pages are kept in memory.
  static absl::StatusOr<std::unique_ptr<SqliteDatabase>> Open(
      const std::string& path, size_t cache_bytes = kDatabaseCacheBytes);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  // Runs trusted SQL (the schema, transactions): every statement of `sql`.
  absl::Status Execute(absl::string_view sql);

  // From now on statements are the user's: the authorizer denies what reaches outside the
  // database (see the file comment).
  void LockDown();

  // The first error a Statement met while loading (sticky), OK if none.
  const absl::Status& load_status() const { return load_status_; }
  void FailLoad(absl::Status status) {
    if (load_status_.ok()) load_status_ = std::move(status);
  }

  // SQLite's message for the last error on this connection.
  std::string LastError() const;

  sqlite3* handle() const { return db_; }

 private:
  explicit SqliteDatabase(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  absl::Status load_status_;
};

// A prepared statement for rows that a loader inserts: bind the parameters (1-based), then
// Run(). Text is bound without a copy: it must stay valid until Run() returns.
class Statement {
 public:
  // Prepares `sql` (trusted) on `db`.
  static absl::StatusOr<Statement> Prepare(SqliteDatabase* db, absl::string_view sql);
  Statement() = default;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  void BindInt(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindText(int index, absl::string_view value);
  void BindNull(int index);
  // NULL for an absent value.
  void BindOptionalText(int index, const std::optional<absl::string_view>& value);
  void BindOptionalInt(int index, const std::optional<int64_t>& value);

  // Steps the statement to its end and resets it (the bindings stay). An error is recorded
  // in the database's load_status(); returns false then.
  bool Run();

 private:
  SqliteDatabase* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_SQLITE_DATABASE_H_
