#include "tools/analysis/diff_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "tools/analysis/report_html.h"

namespace tracewire::tools {
namespace {

constexpr char kStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 20px 28px; color: #1d232a; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 1px solid #d8dee4; padding-bottom: 3px; }
.meta { color: #57606a; margin: 2px 0; }
.warning { background: #fff8c5; padding: 6px 10px; border-radius: 4px; }
code { font: 12px ui-monospace, monospace; background: #f3f5f7; padding: 1px 3px; border-radius: 3px; }
table.diff { border-collapse: collapse; margin: 4px 0 8px; }
table.diff th, table.diff td { padding: 2px 8px; text-align: right; border-bottom: 1px solid #eaeef2; }
table.diff td:last-child, table.diff th:last-child { text-align: left; }
td.slower { color: #a40e26; font-weight: 600; }
td.faster { color: #0b4fa8; font-weight: 600; }
svg.timeline { display: block; margin: 6px 0 4px; background: #fff; }
svg text { font: 11px system-ui, sans-serif; fill: #1d232a; pointer-events: none; }
.legend span { display: inline-block; padding: 0 8px; margin-right: 6px; border-radius: 3px; }
)css";

constexpr int kWidth = 1200;
constexpr int kFrameHeight = 17;

// A node of the call tree: a frame under its parent.
struct Node {
  std::string name;
  uint64_t base = 0, now = 0;
  std::map<std::string, size_t> children;  // by name
};

// The fill of a frame whose share of the samples changed by `delta` (of the largest): light
// grey for no change (so that every frame shows against the page), to red (a larger share
// in NEW) or blue (a smaller one).
std::string Fill(double delta) {
  const double t = std::min(1.0, std::fabs(delta));
  const int strong = static_cast<int>(std::lround(235 + 20 * t));
  const int fade = static_cast<int>(std::lround(235 - 180 * t));
  return delta >= 0 ? absl::StrFormat("rgb(%d,%d,%d)", strong, fade, fade)
                    : absl::StrFormat("rgb(%d,%d,%d)", fade, fade, strong);
}

void DiffFlameGraph(const DiffStacks& stacks, std::string* out) {
  std::vector<Node> nodes(1);
  nodes[0].name = "all";
  uint64_t base_total = 0, now_total = 0;
  for (const auto& [stack, weights] : stacks) {
    base_total += weights.first;
    now_total += weights.second;
    size_t at = 0;
    nodes[0].base += weights.first;
    nodes[0].now += weights.second;
    for (absl::string_view frame : absl::StrSplit(stack, ';')) {
      auto [it, added] = nodes[at].children.try_emplace(std::string(frame), nodes.size());
      if (added) nodes.push_back(Node{std::string(frame)});
      at = it->second;
      nodes[at].base += weights.first;
      nodes[at].now += weights.second;
    }
  }
  if (now_total == 0) {
    absl::StrAppend(out, "<p class=\"meta\">NEW has no CPU samples (record with ",
                    "TRACEWIRE_CPU_PROFILE) to draw.</p>\n");
    return;
  }
  auto share_change = [&](const Node& n) {
    const double b = base_total > 0 ? static_cast<double>(n.base) / base_total : 0;
    return static_cast<double>(n.now) / now_total - b;
  };
  // Layout without recursion: (node, depth, x) in drawing order.
  struct Placed {
    size_t node;
    int depth;
    double x, width;
  };
  std::vector<Placed> placed, todo = {{0, 0, 0, static_cast<double>(kWidth)}};
  double largest = 0;
  int max_depth = 0;
  const double scale = static_cast<double>(kWidth) / static_cast<double>(now_total);
  while (!todo.empty() && placed.size() < kMaxFrames) {
    const Placed p = todo.back();
    todo.pop_back();
    placed.push_back(p);
    largest = std::max(largest, std::fabs(share_change(nodes[p.node])));
    max_depth = std::max(max_depth, p.depth);
    double x = p.x;
    std::vector<Placed> children;
    for (const auto& [name, child] : nodes[p.node].children) {
      const double w = scale * static_cast<double>(nodes[child].now);
      if (w >= 0.5) children.push_back({child, p.depth + 1, x, w});
      x += w;
    }
    todo.insert(todo.end(), children.rbegin(), children.rend());
  }
  const int height = (max_depth + 1) * kFrameHeight;
  absl::StrAppend(out,
                  "<svg class=\"timeline dflame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"",
                  kWidth, "\" height=\"", height, "\">\n");
  for (const Placed& p : placed) {
    const Node& n = nodes[p.node];
    const double change = share_change(n);
    const int y = height - (p.depth + 1) * kFrameHeight;
    absl::StrAppendFormat(out, "<g><title>");
    AppendHtmlEscaped(n.name, out);
    absl::StrAppendFormat(out, ": base %d, new %d (share %+.2f%%)</title>", n.base, n.now,
                          100 * change);
    absl::StrAppendFormat(out,
                          "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" "
                          "stroke=\"#fff\" stroke-width=\"0.5\"/>",
                          p.x, y, p.width, kFrameHeight - 1,
                          Fill(largest > 0 ? change / largest : 0));
    if (p.width > 40) {
      const size_t chars = static_cast<size_t>((p.width - 6) / 6.5);
      std::string label = n.name.size() > chars ? n.name.substr(0, chars) + ".." : n.name;
      absl::StrAppendFormat(out, "<text x=\"%.1f\" y=\"%d\">", p.x + 3, y + 12);
      AppendHtmlEscaped(label, out);
      *out += "</text>";
    }
    *out += "</g>\n";
  }
  *out += "</svg>\n";
  if (placed.size() >= kMaxFrames) {
    absl::StrAppend(out, "<p class=\"meta\">Only the first ", kMaxFrames,
                    " frames are drawn.</p>\n");
  }
}

void ChangeTable(const std::vector<KeyDiff>& diffs, std::string* out) {
  *out +=
      "<table class=\"diff\"><tr><th>verdict</th><th>kind</th><th>change</th><th>interval</th>"
      "<th>base</th><th>new</th><th>n base</th><th>n new</th><th>name</th></tr>\n";
  size_t rows = 0;
  for (const KeyDiff& d : diffs) {
    if (d.kind != DiffKind::kRegion && d.kind != DiffKind::kTask) continue;
    if (d.verdict == DiffVerdict::kUnchanged) continue;
    ++rows;
    const bool median = KindInfo(d.kind).statistic == Statistic::kMedian;
    auto value = [&](const Summary& s) {
      return s.count == 0 ? std::string("-") : FormatValue(d.kind, median ? s.p50 : s.mean);
    };
    absl::StrAppend(
        out, "<tr><td class=\"", VerdictName(d.verdict), "\">", VerdictName(d.verdict), "</td><td>",
        KindInfo(d.kind).label, "</td><td>",
        std::isnan(d.change) ? "-" : absl::StrFormat("%+.1f%%", 100 * d.change), "</td><td>",
        d.interval.valid
            ? absl::StrFormat("[%+.1f%%, %+.1f%%]", 100 * d.interval.low, 100 * d.interval.high)
            : "-",
        "</td><td>", value(d.base), "</td><td>", value(d.now), "</td><td>", d.base.count,
        "</td><td>", d.now.count, "</td><td><code>");
    AppendHtmlEscaped(d.name, out);
    *out += "</code></td></tr>\n";
  }
  *out += "</table>\n";
  if (rows == 0) *out += "<p class=\"meta\">No region or task changed significantly.</p>\n";
}

}  // namespace

std::string RenderDiffHtml(const DiffStacks& stacks, const std::vector<KeyDiff>& diffs,
                           const DiffHeading& heading, const std::string& warning) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  AppendHtmlEscaped(absl::StrCat("tracewire diff: ", heading.base_name, " vs ", heading.new_name),
                    &out);
  absl::StrAppend(&out, "</title>\n<style>", kStyle, "</style>\n</head>\n<body>\n<h1>");
  AppendHtmlEscaped(absl::StrCat(heading.base_name, " → ", heading.new_name), &out);
  out += "</h1>\n";
  for (const auto& [label, name, runs, events] :
       {std::tuple{"base", heading.base_name, heading.base_runs, heading.base_events},
        std::tuple{"new", heading.new_name, heading.new_runs, heading.new_events}}) {
    absl::StrAppend(&out, "<p class=\"meta\">", label, ": <code>");
    AppendHtmlEscaped(name, &out);
    absl::StrAppend(&out, "</code>, ", runs, runs == 1 ? " run, " : " runs, ", events,
                    " events</p>\n");
  }
  if (!warning.empty()) {
    out += "<p class=\"warning\">";
    AppendHtmlEscaped(warning, &out);
    out += "</p>\n";
  }
  out += "<h2>CPU samples: differential flame graph</h2>\n";
  out +=
      "<p class=\"legend\">Widths: NEW's samples. <span style=\"background:rgb(255,55,55)\">"
      "larger share in NEW</span><span style=\"background:rgb(55,55,255);color:#fff\">smaller "
      "share in NEW</span>(hover a frame for its weights)</p>\n";
  DiffFlameGraph(stacks, &out);
  absl::StrAppendFormat(&out,
                        "<h2>Changed regions and tasks</h2>\n<p class=\"meta\">Significant at a "
                        "false discovery rate of %g%%, intervals %g%%; base/new: p50.</p>\n",
                        100 * heading.alpha, 100 * heading.confidence);
  ChangeTable(diffs, &out);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace tracewire::tools
