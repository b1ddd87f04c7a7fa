// QueryShell: runs the SQL of `tracewire query` on a loaded database: the statements of
// -c, or those read from standard input (complete statements, as sqlite3_complete() tells;
// with a prompt on stdout when stdin is a terminal). Every statement prints its own result
// (result_format.h). A few dot commands work on standard input:
//   .tables           the tables and views
//   .schema [NAME]    their CREATE statements (those of NAME)
//   .help             these commands
//   .quit, .exit      end (as does the end of input)
#ifndef TRACEWIRE_TOOLS_QUERY_QUERY_SHELL_H_
#define TRACEWIRE_TOOLS_QUERY_QUERY_SHELL_H_

#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tools/query/result_format.h"
#include "tools/query/sqlite_database.h"

namespace tracewire::tools::query {

class QueryShell {
 public:
  QueryShell(SqliteDatabase* db, ResultWriter* writer) : db_(db), writer_(writer) {}

  // Runs every statement of `sql` in order, stopping at the first error (InvalidArgument
  // with SQLite's message and the statement; Unknown if the output failed).
  absl::Status Run(absl::string_view sql);

  // Reads statements from `in` until its end. `interactive`: prompts on stdout, and an
  // error is printed on stderr and reading goes on. Otherwise the first error ends it and
  // is returned.
  absl::Status RunInput(std::FILE* in, bool interactive);

 private:
  // A dot command line; false for .quit and .exit.
  absl::Status DotCommand(absl::string_view line, bool* quit);

  SqliteDatabase* db_;
  ResultWriter* writer_;
};

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_QUERY_SHELL_H_
