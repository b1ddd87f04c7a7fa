// The views of `tracewire query`: one per common question. The database holds them in plain
// SQL (window functions, no function of tracewire's own), so they work in any SQLite client
// that opens a --db file; `tracewire query`'s own session shadows them with TEMP views of
// the same columns and values that use percentile() (sql_functions.h), several times
// faster. Percentiles interpolate linearly between the two nearest values, rounded to whole
// nanoseconds.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/query/table_writer.h"

namespace tracewire::tools::query {
namespace {

// The p-th percentile (0..100) of `dur` within its group, over rows numbered i = 0..n-1 by
// increasing dur: lo + (hi - lo) * fraction for the rows lo and hi = lo + 1 next to
// position (n - 1) * p / 100, computed as percentile() computes it (the same doubles).
std::string PortablePercentile(int p) {
  const std::string pos = absl::StrFormat("((n - 1) * %d / 100.0)", p);
  const std::string lo = absl::StrCat("CAST(", pos, " AS INTEGER)");
  const std::string low = absl::StrCat("sum(CASE WHEN i = ", lo, " THEN dur ELSE 0 END)");
  const std::string high = absl::StrCat("sum(CASE WHEN i = ", lo, " + 1 THEN dur ELSE 0 END)");
  return absl::StrCat("CAST(round(CASE WHEN max(i) > min(", lo, ") THEN ", low, " + (", high, " - ",
                      low, ") * (min(", pos, ") - min(", lo, ")) ELSE ", low, " END) AS INTEGER)");
}

// A view `view` over the rows `source` selects (the `groups` columns, dur and what
// `extra_columns` aggregates), grouped: count, total, `extra_columns`, p50, p95 and max of
// dur. `portable`: plain SQL (window functions), for the database itself, which any
// SQLite client reads; otherwise a TEMP view with percentile(), several times faster, for
// `tracewire query`'s own session.
std::string StatsView(absl::string_view view, absl::string_view groups, absl::string_view source,
                      absl::string_view extra_columns, bool portable) {
  if (!portable) {
    return absl::StrCat("CREATE TEMP VIEW ", view, " AS\nSELECT ", groups,
                        ", count(*) AS count, sum(dur) AS total_dur", extra_columns,
                        ",\n  CAST(round(percentile(dur, 50)) AS INTEGER) AS p50_dur,\n"
                        "  CAST(round(percentile(dur, 95)) AS INTEGER) AS p95_dur,\n"
                        "  max(dur) AS max_dur\nFROM (",
                        source, ") GROUP BY ", groups, ";\n");
  }
  return absl::StrCat("CREATE VIEW ", view,
                      " AS\nWITH ranked AS (\n  SELECT *, row_number() OVER (PARTITION BY ", groups,
                      " ORDER BY dur) - 1 AS i,\n    count(*) OVER (PARTITION BY ", groups,
                      ") AS n\n  FROM (", source, "))\nSELECT ", groups,
                      ", count(*) AS count, sum(dur) AS total_dur", extra_columns, ",\n  ",
                      PortablePercentile(50), " AS p50_dur,\n  ", PortablePercentile(95),
                      " AS p95_dur,\n  max(dur) AS max_dur\nFROM ranked GROUP BY ", groups, ";\n");
}

// Every view, portable or for the session.
std::string ViewsSchema(bool portable) {
  // Regions by category and name; self_dur is the time outside nested regions.
  std::string schema =
      StatsView("region_stats", "category, name",
                "SELECT category, name, dur, self_dur FROM slice WHERE kind = 'region'",
                ", sum(self_dur) AS self_dur", portable);
  // Processes by command name (git's cmd_name, else the program's base name).
  absl::StrAppend(
      &schema, StatsView("command_stats", "name",
                         "SELECT name, end_ts - start_ts AS dur, exit_code FROM process",
                         ", sum(exit_code IS NOT NULL AND exit_code <> 0) AS failures", portable));
  // Child processes by class and name (hook name or command line).
  absl::StrAppend(
      &schema, StatsView("child_stats", "class, name",
                         "SELECT c.class AS class, s.name AS name, c.dur AS dur, c.exit_code AS "
                         "exit_code FROM child c JOIN slice s ON s.id = c.slice_id",
                         ", sum(exit_code IS NOT NULL AND exit_code <> 0) AS failures", portable));
  return schema;
}

class Views : public TableWriter {
 public:
  explicit Views(LoadContext* context)
      : TableWriter(context), schema_(ViewsSchema(true)), session_(ViewsSchema(false)) {}

  absl::string_view Schema() const override { return schema_; }
  absl::string_view SessionSchema() const override { return session_; }

 private:
  std::string schema_;
  std::string session_;
};

}  // namespace

std::unique_ptr<TableWriter> MakeViews(LoadContext* context) {
  return std::make_unique<Views>(context);
}

}  // namespace tracewire::tools::query
