#include "tools/analysis/diff_output.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "reader/targets/json_writer.h"

namespace tracewire::tools {
namespace {

// The compared statistic of a side (p50 or mean).
double Shown(const KeyDiff& d, const Summary& s) {
  return KindInfo(d.kind).statistic == Statistic::kMedian ? s.p50 : s.mean;
}

std::string Percent(double change) {
  if (std::isnan(change)) return "-";
  return absl::StrFormat("%+.1f%%", 100 * change);
}

std::string IntervalText(const KeyDiff& d) {
  if (!d.interval.valid) return "-";
  return absl::StrCat("[", Percent(d.interval.low), ", ", Percent(d.interval.high), "]");
}

std::string QText(const KeyDiff& d) {
  if (d.verdict == DiffVerdict::kNew || d.verdict == DiffVerdict::kVanished) return "-";
  return d.q < 0.001 ? "<0.001" : absl::StrFormat("%.3f", d.q);
}

std::string SideValue(const KeyDiff& d, const Summary& s) {
  return s.count == 0 ? "-" : FormatValue(d.kind, Shown(d, s));
}

// The cells of one row of the table, CSV-less formats.
std::vector<std::string> Cells(const KeyDiff& d) {
  return {VerdictName(d.verdict),
          std::string(KindInfo(d.kind).label),
          Percent(d.change),
          IntervalText(d),
          SideValue(d, d.base),
          SideValue(d, d.now),
          absl::StrCat(d.base.count),
          absl::StrCat(d.now.count),
          QText(d),
          d.name};
}

constexpr const char* kColumns[] = {"verdict", "kind",   "change", "interval", "base",
                                    "new",     "n base", "n new",  "q",        "name"};

std::string Heading(const DiffHeading& h) {
  auto side = [](const std::string& name, size_t runs, uint64_t events) {
    return absl::StrCat(name, " (", runs, runs == 1 ? " run, " : " runs, ", events, " events)");
  };
  return absl::StrFormat(
             "base: %s\nnew:  %s\nchanges: significant at a false discovery rate of %g%% and of "
             "%g%% or more, intervals %g%%; base/new: p50 of durations, mean of the others\n",
             side(h.base_name, h.base_runs, h.base_events),
             side(h.new_name, h.new_runs, h.new_events), 100 * h.alpha, 100 * h.min_change,
             100 * h.confidence) +
         (h.base_runs == 1 || h.new_runs == 1
              ? "note: one run on a side: run-to-run noise is only estimated from the drift "
                "within the run; record 5 or more runs a side to measure it\n"
              : "");
}

std::string Table(const std::vector<KeyDiff>& diffs, const DiffHeading& heading) {
  std::vector<std::vector<std::string>> rows;
  rows.emplace_back(std::begin(kColumns), std::end(kColumns));
  for (const KeyDiff& d : diffs) rows.push_back(Cells(d));
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out = Heading(heading);
  out += "\n";
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i + 1 == row.size()) {
        line += row[i];
      } else {
        absl::StrAppend(&line, row[i], std::string(widths[i] - row[i].size() + 2, ' '));
      }
    }
    absl::StrAppend(&out, line, "\n");
  }
  if (diffs.empty()) out += "(no keys)\n";
  return out;
}

std::string Markdown(const std::vector<KeyDiff>& diffs, const DiffHeading& heading) {
  std::string out = Heading(heading);
  absl::StrReplaceAll({{"\n", "  \n"}}, &out);
  out += "\n| " + absl::StrJoin(kColumns, " | ") + " |\n|";
  for (size_t i = 0; i < std::size(kColumns); ++i) out += i >= 2 && i <= 8 ? "---:|" : "---|";
  out += "\n";
  for (const KeyDiff& d : diffs) {
    std::vector<std::string> cells = Cells(d);
    for (std::string& cell : cells) absl::StrReplaceAll({{"|", "\\|"}}, &cell);
    cells.back() = "`" + cells.back() + "`";
    if (d.significant()) cells[0] = "**" + cells[0] + "**";
    out += "| " + absl::StrJoin(cells, " | ") + " |\n";
  }
  return out;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string Number(double v) {
  if (std::isnan(v) || std::isinf(v)) return "";
  return absl::StrFormat("%.17g", v);
}

constexpr const char* kStatNames[] = {"count", "total", "mean", "p50", "p95", "p99"};

std::vector<double> StatsOf(const Summary& s) {
  return {static_cast<double>(s.count), s.total, s.mean, s.p50, s.p95, s.p99};
}

std::string Csv(const std::vector<KeyDiff>& diffs) {
  std::vector<std::string> header = {"kind", "name", "verdict", "change", "low",
                                     "high", "p",    "p_runs",  "q"};
  for (const char* side : {"base", "new"}) {
    for (const char* stat : kStatNames) header.push_back(absl::StrCat(side, "_", stat));
  }
  std::string out = absl::StrJoin(header, ",") + "\n";
  for (const KeyDiff& d : diffs) {
    std::vector<std::string> f = {std::string(KindInfo(d.kind).label),
                                  CsvField(d.name),
                                  VerdictName(d.verdict),
                                  Number(d.change),
                                  d.interval.valid ? Number(d.interval.low) : "",
                                  d.interval.valid ? Number(d.interval.high) : "",
                                  Number(d.p),
                                  d.runs_tested || d.blocks_tested ? Number(d.p_runs) : "",
                                  Number(d.q)};
    for (const Summary* s : {&d.base, &d.now}) {
      for (double v : StatsOf(*s)) f.push_back(Number(v));
    }
    out += absl::StrJoin(f, ",") + "\n";
  }
  return out;
}

void JsonNumber(double v, std::string* out) {
  *out += std::isnan(v) || std::isinf(v) ? "null" : absl::StrFormat("%.17g", v);
}

std::string Json(const std::vector<KeyDiff>& diffs, const DiffHeading& h) {
  std::string out = "{\"base\":{\"name\":";
  targets::AppendJsonString(h.base_name, &out);
  absl::StrAppend(&out, ",\"runs\":", h.base_runs, ",\"events\":", h.base_events,
                  "},\"new\":{\"name\":");
  targets::AppendJsonString(h.new_name, &out);
  absl::StrAppend(&out, ",\"runs\":", h.new_runs, ",\"events\":", h.new_events, "},\"alpha\":");
  JsonNumber(h.alpha, &out);
  out += ",\"confidence\":";
  JsonNumber(h.confidence, &out);
  out += ",\"keys\":[";
  for (size_t i = 0; i < diffs.size(); ++i) {
    const KeyDiff& d = diffs[i];
    if (i > 0) out += ",";
    absl::StrAppend(&out, "\n{\"kind\":\"", KindInfo(d.kind).label, "\",\"name\":");
    targets::AppendJsonString(d.name, &out);
    absl::StrAppend(&out, ",\"verdict\":\"", VerdictName(d.verdict), "\",\"change\":");
    JsonNumber(d.change, &out);
    out += ",\"interval\":";
    if (d.interval.valid) {
      out += "[";
      JsonNumber(d.interval.low, &out);
      out += ",";
      JsonNumber(d.interval.high, &out);
      out += "]";
    } else {
      out += "null";
    }
    out += ",\"p\":";
    JsonNumber(d.p, &out);
    out += ",\"p_runs\":";
    if (d.runs_tested || d.blocks_tested) {
      JsonNumber(d.p_runs, &out);
    } else {
      out += "null";
    }
    out += ",\"q\":";
    JsonNumber(d.q, &out);
    for (const auto& [side, s] : {std::pair<const char*, const Summary*>{"base", &d.base},
                                  std::pair<const char*, const Summary*>{"new", &d.now}}) {
      absl::StrAppend(&out, ",\"", side, "\":{");
      const std::vector<double> stats = StatsOf(*s);
      for (size_t k = 0; k < stats.size(); ++k) {
        absl::StrAppend(&out, k > 0 ? "," : "", "\"", kStatNames[k], "\":");
        JsonNumber(stats[k], &out);
      }
      out += "}";
    }
    out += "}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace

std::optional<DiffFormat> DiffFormatByName(absl::string_view name) {
  static constexpr std::pair<absl::string_view, DiffFormat> kFormats[] = {
      {"table", DiffFormat::kTable},
      {"json", DiffFormat::kJson},
      {"csv", DiffFormat::kCsv},
      {"markdown", DiffFormat::kMarkdown}};
  for (const auto& [n, f] : kFormats) {
    if (n == name) return f;
  }
  return std::nullopt;
}

bool DiffFilter::Keep(const KeyDiff& d) const {
  if (!groups.empty() && !groups.contains(std::string(KindInfo(d.kind).group))) return false;
  if (min_count > 0) {
    if (d.base.count > 0 && d.base.count < min_count) return false;
    if (d.now.count > 0 && d.now.count < min_count) return false;
  }
  return true;
}

std::string FormatValue(DiffKind kind, double value) {
  const DiffKindInfo& info = KindInfo(kind);
  if (info.duration) {
    static constexpr std::pair<double, const char*> kUnits[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    for (const auto& [scale, unit] : kUnits) {
      if (std::fabs(value) >= scale || scale == 1) {
        return absl::StrCat(absl::StrFormat("%.4g", value / scale), unit);
      }
    }
  }
  if (kind == DiffKind::kFunctionSelf || kind == DiffKind::kFunctionTotal) {
    return absl::StrFormat("%.3g%%", value);
  }
  return absl::StrFormat("%.4g", value);
}

std::string RenderDiff(const std::vector<KeyDiff>& diffs, const DiffHeading& heading,
                       DiffFormat format) {
  switch (format) {
    case DiffFormat::kTable:
      return Table(diffs, heading);
    case DiffFormat::kJson:
      return Json(diffs, heading);
    case DiffFormat::kCsv:
      return Csv(diffs);
    case DiffFormat::kMarkdown:
      return Markdown(diffs, heading);
  }
  return "";
}

}  // namespace tracewire::tools
