// The views of `tracewire query`: one per common question, in plain SQL (window functions,
// no function of tracewire's own), so they work in any SQLite client that opens a --db
// file. Their percentiles interpolate linearly between the two nearest values, as the
// percentile() aggregate does (sql_functions.h), rounded to whole nanoseconds.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/query/table_list.h"

namespace tracewire::tools::query {
namespace {

// The p-th percentile (0..100) of `dur` within its group, over rows numbered i = 0..n-1 by
// increasing dur: the weighted sum of the rows next to position (n - 1) * p / 100.
std::string Percentile(int p) {
  const std::string pos = absl::StrFormat("((n - 1) * %d / 100.0)", p);
  const std::string lo = absl::StrCat("CAST(", pos, " AS INTEGER)");
  const std::string frac = absl::StrCat("(", pos, " - ", lo, ")");
  return absl::StrCat("CAST(round(sum(CASE WHEN i = ", lo, " THEN dur * (1 - ", frac,
                      ") WHEN i = ", lo, " + 1 THEN dur * ", frac, " ELSE 0 END)) AS INTEGER)");
}

// A view of `view` over the rows `source` selects (columns: the `groups`, dur and any
// `extra_inputs`), grouped: count, total, p50, p95 and max of dur, then `extra_columns`.
std::string StatsView(absl::string_view view, absl::string_view groups, absl::string_view source,
                      absl::string_view extra_columns) {
  return absl::StrCat("CREATE VIEW ", view,
                      " AS\nWITH ranked AS (\n  SELECT *, row_number() OVER (PARTITION BY ", groups,
                      " ORDER BY dur) - 1 AS i,\n    count(*) OVER (PARTITION BY ", groups,
                      ") AS n\n  FROM (", source, "))\nSELECT ", groups,
                      ", count(*) AS count, sum(dur) AS total_dur", extra_columns, ",\n  ",
                      Percentile(50), " AS p50_dur,\n  ", Percentile(95),
                      " AS p95_dur,\n  max(dur) AS max_dur\nFROM ranked GROUP BY ", groups, ";\n");
}

class Views : public TableWriter {
 public:
  explicit Views(LoadContext* context) : TableWriter(context) {
    // Regions by category and name; self_dur is the time outside nested regions.
    schema_ = StatsView("region_stats", "category, name",
                        "SELECT category, name, dur, self_dur FROM slice WHERE kind = 'region'",
                        ", sum(self_dur) AS self_dur");
    // Processes by command name (git's cmd_name, else the program's base name).
    absl::StrAppend(&schema_,
                    StatsView("command_stats", "name",
                              "SELECT name, end_ts - start_ts AS dur, exit_code FROM process",
                              ", sum(exit_code IS NOT NULL AND exit_code <> 0) AS failures"));
    // Child processes by class and name (hook name or command line).
    absl::StrAppend(
        &schema_, StatsView("child_stats", "class, name",
                            "SELECT c.class AS class, s.name AS name, c.dur AS dur, c.exit_code AS "
                            "exit_code FROM child c JOIN slice s ON s.id = c.slice_id",
                            ", sum(exit_code IS NOT NULL AND exit_code <> 0) AS failures"));
  }

  absl::string_view Schema() const override { return schema_; }

 private:
  std::string schema_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeViews(LoadContext* context) {
  return std::make_unique<Views>(context);
}

}  // namespace tracewire::tools::query
