#include "tools/query/sqlite_database.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace tracewire::tools::query {
namespace {

// Pragmas that name a file or directory, or let SQL rewrite the schema's trust: denied.
constexpr const char* kDeniedPragmas[] = {
    "temp_store_directory",
    "data_store_directory",
    "writable_schema",
    "trusted_schema",
};

// Functions that reach outside the database: denied (load_extension is also switched off
// in the connection's configuration).
constexpr const char* kDeniedFunctions[] = {"load_extension", "fts3_tokenizer"};

bool Named(const char* name, absl::Span<const char* const> names) {
  if (name == nullptr) return false;
  for (const char* denied : names) {
    if (absl::EqualsIgnoreCase(name, denied)) return true;
  }
  return false;
}

// The authorizer of user statements (sqlite3_set_authorizer).
int Authorize(void* /*unused*/, int action, const char* arg1, const char* arg2,
              const char* /*database*/, const char* /*trigger_or_view*/) {
  switch (action) {
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
      return SQLITE_DENY;
    case SQLITE_PRAGMA:
      return Named(arg1, kDeniedPragmas) ? SQLITE_DENY : SQLITE_OK;
    case SQLITE_FUNCTION:
      return Named(arg2, kDeniedFunctions) ? SQLITE_DENY : SQLITE_OK;
    default:
      return SQLITE_OK;
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteDatabase>> SqliteDatabase::Open(const std::string& path,
                                                                     size_t cache_bytes) {
  // One thread uses SQLite: no mutexes, and no memory statistics (a mutex per allocation).
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (!path.empty()) {
    struct stat st;
    if (lstat(path.c_str(), &st) == 0) {
      return absl::AlreadyExistsError(
          absl::StrCat(path, ": already exists (--db writes a new database; remove it first)"));
    }
  }
  sqlite3* db = nullptr;
  // URI file names stay off: `path` is a plain file name. The empty name is SQLite's
  // private temporary database: pages live in the cache and go to an unlinked file in the
  // temporary directory once the cache is full, so memory stays within the cache size.
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnavailableError(
        absl::StrCat(path.empty() ? "temporary database" : path, ": ", message));
  }
  std::unique_ptr<SqliteDatabase> database(new SqliteDatabase(db));
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 1, nullptr);
  sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
  if (absl::Status s = database->Execute(
          absl::StrCat("PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                       "PRAGMA cache_size=-",
                       std::max<size_t>(cache_bytes >> 10, 1), "; PRAGMA locking_mode=EXCLUSIVE;"));
      !s.ok()) {
    return s;
  }
  return database;
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close_v2(db_); }

std::string SqliteDatabase::LastError() const { return sqlite3_errmsg(db_); }

absl::Status SqliteDatabase::Execute(absl::string_view sql) {
  const std::string text(sql);
  char* error = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    absl::Status status = absl::InternalError(error != nullptr ? error : LastError());
    sqlite3_free(error);
    return status;
  }
  return absl::OkStatus();
}

void SqliteDatabase::LockDown() {
  sqlite3_set_authorizer(db_, Authorize, nullptr);
  // Settings a user statement could change back are set again here for good measure.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  sqlite3_limit(db_, SQLITE_LIMIT_ATTACHED, 0);
}

absl::StatusOr<Statement> Statement::Prepare(SqliteDatabase* db, absl::string_view sql) {
  Statement statement;
  statement.db_ = db;
  if (sqlite3_prepare_v3(db->handle(), sql.data(), static_cast<int>(sql.size()),
                         SQLITE_PREPARE_PERSISTENT, &statement.stmt_, nullptr) != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("preparing \"", sql, "\": ", db->LastError()));
  }
  return statement;
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::BindInt(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void Statement::BindDouble(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void Statement::BindText(int index, absl::string_view value) {
  // A non-null pointer: an empty string is text, not NULL.
  sqlite3_bind_text(stmt_, index, value.empty() ? "" : value.data(), static_cast<int>(value.size()),
                    SQLITE_STATIC);
}
void Statement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }
void Statement::BindOptionalText(int index, const std::optional<absl::string_view>& value) {
  if (value.has_value()) {
    BindText(index, *value);
  } else {
    BindNull(index);
  }
}
void Statement::BindOptionalInt(int index, const std::optional<int64_t>& value) {
  if (value.has_value()) {
    BindInt(index, *value);
  } else {
    BindNull(index);
  }
}

bool Statement::Run() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt_);
    return true;
  }
  db_->FailLoad(absl::InternalError(
      absl::StrCat("inserting with \"", sqlite3_sql(stmt_), "\": ", db_->LastError())));
  sqlite3_reset(stmt_);
  return false;
}

}  // namespace tracewire::tools::query
