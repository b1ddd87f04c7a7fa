// ResultWriter: prints the rows of a query in one of `tracewire query`'s formats:
//   table  columns aligned under a header and a rule (the widths of the first 1000 rows;
//          later wider values widen their line only), numbers right-aligned, NULL as
//          "NULL", newlines and tabs in values shown as \n and \t;
//   csv    RFC 4180: a header line, values quoted when they hold a comma, quote, CR or LF;
//          NULL as an empty field;
//   tsv    a header line, tab-separated values with \t, \n, \r and \\ escaped; NULL empty;
//   json   a JSON array of objects (one per row, members in column order), one object per
//          line; integers and reals as numbers, NULL as null, text as strings (bytes that
//          are not UTF-8 become U+FFFD), blobs as hex strings.
// A statement without result columns prints nothing; consecutive results of table, csv
// and tsv are separated by an empty line.
#ifndef TRACEWIRE_TOOLS_QUERY_RESULT_FORMAT_H_
#define TRACEWIRE_TOOLS_QUERY_RESULT_FORMAT_H_

#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3_stmt;

namespace tracewire::tools::query {

enum class ResultFormat { kTable, kCsv, kTsv, kJson };

// The format named `name` (table, csv, tsv, json); InvalidArgument otherwise.
absl::StatusOr<ResultFormat> ParseResultFormat(absl::string_view name);

class ResultWriter {
 public:
  ResultWriter(ResultFormat format, std::FILE* out) : format_(format), out_(out) {}

  // Steps the prepared statement `stmt` to its end, printing its rows. Returns SQLite's
  // error (InvalidArgument, with its message) if a step fails, and an I/O error (Unknown)
  // if the output cannot be written.
  absl::Status Write(sqlite3_stmt* stmt);

 private:
  ResultFormat format_;
  std::FILE* out_;
  bool printed_ = false;  // a result was printed before
};

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_RESULT_FORMAT_H_
