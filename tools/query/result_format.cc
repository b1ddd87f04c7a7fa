#include "tools/query/result_format.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reader/targets/valid_utf8.h"

namespace tracewire::tools::query {
namespace {

// Rows whose widths set the table's columns.
constexpr size_t kAlignRows = 1000;

// A value as text; `null` for NULL.
std::string ValueText(sqlite3_stmt* stmt, int column, absl::string_view null) {
  switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
      return absl::StrCat(sqlite3_column_int64(stmt, column));
    case SQLITE_FLOAT: {
      char buffer[32];
      const std::to_chars_result r =
          std::to_chars(buffer, buffer + sizeof(buffer), sqlite3_column_double(stmt, column));
      return std::string(buffer, r.ptr);
    }
    case SQLITE_TEXT: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, column));
      return std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, column)));
    }
    case SQLITE_BLOB: {
      const auto* blob = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, column));
      std::string hex;
      for (int i = 0; i < sqlite3_column_bytes(stmt, column); ++i) {
        absl::StrAppendFormat(&hex, "%02x", blob[i]);
      }
      return hex;
    }
    default:
      return std::string(null);
  }
}

bool IsNumber(sqlite3_stmt* stmt, int column) {
  const int type = sqlite3_column_type(stmt, column);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

// Display width: UTF-8 code points.
size_t Width(absl::string_view text) {
  size_t width = 0;
  for (const char c : text) width += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return width;
}

// A table cell: control characters that would break the layout escaped.
std::string TableCell(std::string text) {
  std::string cell;
  for (const char c : text) {
    if (c == '\n') {
      cell += "\\n";
    } else if (c == '\t') {
      cell += "\\t";
    } else if (c == '\r') {
      cell += "\\r";
    } else {
      cell += c;
    }
  }
  return cell;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string field = "\"";
  for (const char c : text) {
    if (c == '"') field += '"';
    field += c;
  }
  return field + "\"";
}

std::string TsvField(const std::string& text) {
  std::string field;
  for (const char c : text) {
    switch (c) {
      case '\t':
        field += "\\t";
        break;
      case '\n':
        field += "\\n";
        break;
      case '\r':
        field += "\\r";
        break;
      case '\\':
        field += "\\\\";
        break;
      default:
        field += c;
    }
  }
  return field;
}

void AppendJsonString(absl::string_view raw, std::string* out) {
  std::string scratch;
  const absl::string_view text = targets::ValidUtf8(raw, &scratch);
  *out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", static_cast<unsigned char>(c));
        } else {
          *out += c;
        }
    }
  }
  *out += '"';
}

void AppendJsonValue(sqlite3_stmt* stmt, int column, std::string* out) {
  switch (sqlite3_column_type(stmt, column)) {
    case SQLITE_INTEGER:
      absl::StrAppend(out, sqlite3_column_int64(stmt, column));
      return;
    case SQLITE_FLOAT: {
      const double value = sqlite3_column_double(stmt, column);
      if (!std::isfinite(value)) {
        *out += "null";  // JSON has no infinities
        return;
      }
      *out += ValueText(stmt, column, "");
      return;
    }
    case SQLITE_NULL:
      *out += "null";
      return;
    default:
      AppendJsonString(ValueText(stmt, column, ""), out);
  }
}

}  // namespace

absl::StatusOr<ResultFormat> ParseResultFormat(absl::string_view name) {
  if (name == "table") return ResultFormat::kTable;
  if (name == "csv") return ResultFormat::kCsv;
  if (name == "tsv") return ResultFormat::kTsv;
  if (name == "json") return ResultFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --format '", name, "' (query formats: table, csv, tsv, json)"));
}

absl::Status ResultWriter::Write(sqlite3_stmt* stmt) {
  const int columns = sqlite3_column_count(stmt);
  std::vector<std::string> names;
  for (int c = 0; c < columns; ++c) names.emplace_back(sqlite3_column_name(stmt, c));
  std::string out;
  // Table rows held back until the widths are known; right-alignment per cell.
  std::vector<std::vector<std::string>> held;
  std::vector<std::vector<bool>> held_numbers;
  std::vector<size_t> widths;
  bool table_started = false;
  uint64_t rows = 0;
  const auto flush = [&]() -> absl::Status {
    if (!out.empty() && std::fwrite(out.data(), 1, out.size(), out_) != out.size()) {
      return absl::UnknownError("writing the result failed");
    }
    out.clear();
    return absl::OkStatus();
  };
  const auto table_line = [&](const std::vector<std::string>& cells,
                              const std::vector<bool>& numbers) {
    for (int c = 0; c < columns; ++c) {
      const size_t pad = widths[c] > Width(cells[c]) ? widths[c] - Width(cells[c]) : 0;
      if (c > 0) out += "  ";
      if (numbers[c]) out.append(pad, ' ');
      out += cells[c];
      if (!numbers[c] && c + 1 < columns) out.append(pad, ' ');
    }
    out += '\n';
  };
  const auto start_table = [&] {
    widths.assign(columns, 0);
    for (int c = 0; c < columns; ++c) widths[c] = Width(names[c]);
    for (const std::vector<std::string>& row : held) {
      for (int c = 0; c < columns; ++c) widths[c] = std::max(widths[c], Width(row[c]));
    }
    // A header sits over its values: right-aligned over a column of numbers.
    std::vector<bool> numeric(columns, false);
    for (int c = 0; c < columns; ++c) {
      bool numbers = false;
      bool text = false;
      for (size_t r = 0; r < held.size(); ++r) {
        if (held_numbers[r][c]) {
          numbers = true;
        } else if (held[r][c] != "NULL") {
          text = true;
        }
      }
      numeric[c] = numbers && !text;
    }
    table_line(names, numeric);
    std::vector<std::string> rule;
    for (int c = 0; c < columns; ++c) rule.emplace_back(widths[c], '-');
    table_line(rule, numeric);
    for (size_t r = 0; r < held.size(); ++r) table_line(held[r], held_numbers[r]);
    held.clear();
    held_numbers.clear();
    table_started = true;
  };

  if (columns > 0) {
    if (printed_ && format_ != ResultFormat::kJson) out += '\n';
    if (format_ == ResultFormat::kCsv || format_ == ResultFormat::kTsv) {
      for (int c = 0; c < columns; ++c) {
        if (c > 0) out += format_ == ResultFormat::kCsv ? ',' : '\t';
        out += format_ == ResultFormat::kCsv ? CsvField(names[c]) : TsvField(names[c]);
      }
      out += '\n';
    } else if (format_ == ResultFormat::kJson) {
      out += '[';
    }
  }
  while (true) {
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      if (columns > 0 && format_ == ResultFormat::kTable && !table_started) start_table();
      if (columns > 0 && format_ == ResultFormat::kJson) out += "]\n";
      flush().IgnoreError();  // the SQL error is the one to report
      printed_ = printed_ || columns > 0;
      return absl::InvalidArgumentError(sqlite3_errmsg(sqlite3_db_handle(stmt)));
    }
    if (columns == 0) continue;
    switch (format_) {
      case ResultFormat::kTable: {
        std::vector<std::string> cells;
        std::vector<bool> numbers;
        for (int c = 0; c < columns; ++c) {
          cells.push_back(TableCell(ValueText(stmt, c, "NULL")));
          numbers.push_back(IsNumber(stmt, c));
        }
        if (table_started) {
          table_line(cells, numbers);
        } else {
          held.push_back(std::move(cells));
          held_numbers.push_back(std::move(numbers));
          if (held.size() >= kAlignRows) start_table();
        }
        break;
      }
      case ResultFormat::kCsv:
      case ResultFormat::kTsv:
        for (int c = 0; c < columns; ++c) {
          if (c > 0) out += format_ == ResultFormat::kCsv ? ',' : '\t';
          const std::string text = ValueText(stmt, c, "");
          out += format_ == ResultFormat::kCsv ? CsvField(text) : TsvField(text);
        }
        out += '\n';
        break;
      case ResultFormat::kJson:
        out += rows == 0 ? "\n{" : ",\n{";
        for (int c = 0; c < columns; ++c) {
          if (c > 0) out += ',';
          AppendJsonString(names[c], &out);
          out += ':';
          AppendJsonValue(stmt, c, &out);
        }
        out += '}';
        break;
    }
    ++rows;
    if (out.size() >= (size_t{1} << 16)) {
      if (absl::Status s = flush(); !s.ok()) return s;
    }
  }
  if (columns > 0) {
    if (format_ == ResultFormat::kTable && !table_started) start_table();
    if (format_ == ResultFormat::kJson) out += rows == 0 ? "]\n" : "\n]\n";
    printed_ = true;
  }
  if (absl::Status s = flush(); !s.ok()) return s;
  if (std::fflush(out_) != 0) return absl::UnknownError("writing the result failed");
  return absl::OkStatus();
}

}  // namespace tracewire::tools::query
