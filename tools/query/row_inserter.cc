#include "tools/query/row_inserter.h"

#include <sqlite3.h>

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tracewire::tools::query {

absl::StatusOr<RowInserter> RowInserter::Prepare(SqliteDatabase* db, absl::string_view insert_sql) {
  const size_t values = insert_sql.find(" VALUES ");
  if (values == absl::string_view::npos) {
    return absl::InternalError(absl::StrCat("not an INSERT ... VALUES: ", insert_sql));
  }
  const absl::string_view head = insert_sql.substr(0, values);
  const int columns =
      static_cast<int>(std::count(insert_sql.begin() + values, insert_sql.end(), '?'));
  std::string batch_sql = absl::StrCat(head, " VALUES ");
  for (int row = 0; row < kBatchRows; ++row) {
    absl::StrAppend(&batch_sql, row == 0 ? "(" : ", (");
    for (int c = 0; c < columns; ++c) absl::StrAppend(&batch_sql, c == 0 ? "?" : ", ?");
    absl::StrAppend(&batch_sql, ")");
  }
  RowInserter inserter;
  inserter.db_ = db;
  inserter.columns_ = columns;
  absl::StatusOr<Statement> batch = Statement::Prepare(db, batch_sql);
  if (!batch.ok()) return batch.status();
  absl::StatusOr<Statement> single = Statement::Prepare(db, insert_sql);
  if (!single.ok()) return single.status();
  inserter.batch_ = std::move(*batch);
  inserter.single_ = std::move(*single);
  inserter.cells_.resize(static_cast<size_t>((kBatchRows + 1) * columns));
  return inserter;
}

bool RowInserter::Run() {
  if (++rows_ < kBatchRows) return true;
  rows_ = 0;
  const bool ok = Insert(batch_, 0, kBatchRows, /*changed_only=*/!rebind_all_);
  rebind_all_ = false;
  return ok;
}

bool RowInserter::Flush() {
  bool ok = true;
  for (int row = 0; row < rows_; ++row) ok = Insert(single_, row, 1, false) && ok;
  // The cells of those rows no longer hold what the batch statement has bound.
  if (rows_ > 0) rebind_all_ = true;
  rows_ = 0;
  return ok;
}

bool RowInserter::Insert(Statement& statement, int first_row, int rows, bool changed_only) {
  int parameter = 1;
  for (size_t i = static_cast<size_t>(first_row * columns_);
       i < static_cast<size_t>((first_row + rows) * columns_); ++i, ++parameter) {
    Value& value = cells_[i];
    if (changed_only && !value.changed) continue;
    value.changed = false;
    switch (value.type) {
      case kNull:
        statement.BindNull(parameter);
        break;
      case kInt:
        statement.BindInt(parameter, value.int_value);
        break;
      case kDouble:
        statement.BindDouble(parameter, value.double_value);
        break;
      case kText:
        statement.BindText(parameter, value.text);
        break;
    }
  }
  return statement.Run();
}

}  // namespace tracewire::tools::query
