#include "tools/query/sql_functions.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <new>

#include "absl/strings/str_cat.h"

namespace tracewire::tools::query {
namespace {

// The state of one percentile() group (in SQLite's zeroed aggregate context).
struct PercentileState {
  std::vector<double>* values;  // null until the first value
  double p;
  bool has_p;
  bool failed;
};

void PercentileStep(sqlite3_context* context, int /*argc*/, sqlite3_value** argv) {
  auto* state =
      static_cast<PercentileState*>(sqlite3_aggregate_context(context, sizeof(PercentileState)));
  if (state == nullptr) {
    sqlite3_result_error_nomem(context);
    return;
  }
  if (state->failed) return;
  const int p_type = sqlite3_value_numeric_type(argv[1]);
  const double p = sqlite3_value_double(argv[1]);
  if ((p_type != SQLITE_INTEGER && p_type != SQLITE_FLOAT) || !(p >= 0 && p <= 100)) {
    state->failed = true;
    sqlite3_result_error(context, "percentile(value, p): p must be a number from 0 to 100", -1);
    return;
  }
  if (state->has_p && state->p != p) {
    state->failed = true;
    sqlite3_result_error(context, "percentile(value, p): p must be the same for every row", -1);
    return;
  }
  state->p = p;
  state->has_p = true;
  const int type = sqlite3_value_numeric_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
    state->failed = true;
    sqlite3_result_error(context, "percentile(value, p): value must be a number", -1);
    return;
  }
  const double value = sqlite3_value_double(argv[0]);
  if (std::isnan(value)) return;
  if (state->values == nullptr) {
    state->values = new (std::nothrow) std::vector<double>();
    if (state->values == nullptr) {
      sqlite3_result_error_nomem(context);
      return;
    }
  }
  state->values->push_back(value);
}

void PercentileFinal(sqlite3_context* context) {
  auto* state = static_cast<PercentileState*>(sqlite3_aggregate_context(context, 0));
  if (state == nullptr) {  // no row at all
    sqlite3_result_null(context);
    return;
  }
  std::vector<double>* values = state->values;
  state->values = nullptr;
  if (state->failed) {
    sqlite3_result_error(context, "percentile(value, p): invalid arguments", -1);
  } else if (values == nullptr || values->empty()) {
    sqlite3_result_null(context);
  } else {
    sqlite3_result_double(context, Percentile(*values, state->p));
  }
  delete values;
}

}  // namespace

double Percentile(std::vector<double>& values, double p) {
  const double position = (static_cast<double>(values.size()) - 1) * p / 100.0;
  const size_t lo = static_cast<size_t>(position);
  std::nth_element(values.begin(), values.begin() + lo, values.end());
  const double low = values[lo];
  const double fraction = position - static_cast<double>(lo);
  if (fraction == 0 || lo + 1 >= values.size()) return low;
  const double high = *std::min_element(values.begin() + lo + 1, values.end());
  return low + (high - low) * fraction;
}

absl::Status RegisterSqlFunctions(SqliteDatabase* db) {
  if (sqlite3_create_function_v2(db->handle(), "percentile", 2,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nullptr,
                                 nullptr, PercentileStep, PercentileFinal, nullptr) != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("registering percentile(): ", db->LastError()));
  }
  return absl::OkStatus();
}

}  // namespace tracewire::tools::query
