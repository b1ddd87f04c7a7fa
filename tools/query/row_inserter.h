// RowInserter: inserts rows into one table of the `tracewire query` database in batches:
// each row's values are kept (text copied) until a batch is full, and the batch goes in
// with one multi-row INSERT, which costs SQLite much less per row than a statement per row.
// Flush() inserts what is kept; the loader flushes every inserter before it commits, and a
// writer flushes its own before it reads or updates its table. A value equal to the one the
// batch statement holds at its place from the previous batch is not bound again (ids of
// processes and threads, categories and names repeat from row to row).
#ifndef TRACEWIRE_TOOLS_QUERY_ROW_INSERTER_H_
#define TRACEWIRE_TOOLS_QUERY_ROW_INSERTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tools/query/sqlite_database.h"

namespace tracewire::tools::query {

class RowInserter {
 public:
  // Rows per multi-row INSERT.
  static constexpr int kBatchRows = 64;

  // For `insert_sql` of the form "INSERT INTO t (a, b, ...) VALUES (?1, ?2, ...)", with one
  // parameter per column.
  static absl::StatusOr<RowInserter> Prepare(SqliteDatabase* db, absl::string_view insert_sql);
  RowInserter() = default;
  RowInserter(RowInserter&&) = default;
  RowInserter& operator=(RowInserter&&) = default;
  // Rows still kept are dropped: Flush() first.
  ~RowInserter() = default;

  // The values of the row being built, by column (1-based). Every column must be set once
  // per row. Text is copied.
  void BindInt(int column, int64_t value) { Cell(column).Set(value); }
  void BindDouble(int column, double value) { Cell(column).Set(value); }
  void BindText(int column, absl::string_view value) { Cell(column).Set(value); }
  void BindNull(int column) { Cell(column).SetNull(); }
  void BindOptionalText(int column, const std::optional<absl::string_view>& value) {
    if (value.has_value()) {
      BindText(column, *value);
    } else {
      BindNull(column);
    }
  }
  void BindOptionalInt(int column, const std::optional<int64_t>& value) {
    if (value.has_value()) {
      BindInt(column, *value);
    } else {
      BindNull(column);
    }
  }
  // Ends the row; inserts the batch when full.
  // Errors go to the database's load_status(); returns false then.
  bool Run();
  // Inserts the rows kept.
  bool Flush();

 private:
  enum CellType : uint8_t { kNull, kInt, kDouble, kText };
  // A value, and whether it differs from what the batch statement holds at its place.
  struct Value {
    CellType type = kNull;
    bool changed = true;
    int64_t int_value = 0;
    double double_value = 0;
    std::string text;  // its buffer is what the statement holds (bound without a copy)
    void SetNull() {
      changed |= type != kNull;
      type = kNull;
    }
    void Set(int64_t v) {
      changed |= type != kInt || int_value != v;
      type = kInt;
      int_value = v;
    }
    void Set(double v) {
      changed = true;
      type = kDouble;
      double_value = v;
    }
    void Set(absl::string_view v) {
      if (type == kText && text == v) return;  // same bytes, same buffer
      changed = true;
      type = kText;
      text.assign(v.data(), v.size());
    }
  };
  Value& Cell(int column) { return cells_[static_cast<size_t>(rows_ * columns_ + column - 1)]; }
  // Binds rows [first_row, first_row + rows) to `statement` (only the changed values if
  // `changed_only`) and runs it.
  bool Insert(Statement& statement, int first_row, int rows, bool changed_only);

  SqliteDatabase* db_ = nullptr;
  int columns_ = 0;
  int rows_ = 0;              // complete rows kept
  bool rebind_all_ = true;    // the batch statement does not hold the cells' values (after Flush)
  Statement batch_;           // kBatchRows rows
  Statement single_;          // one row
  std::vector<Value> cells_;  // (kBatchRows + 1) rows of columns_ values
};

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_ROW_INSERTER_H_
