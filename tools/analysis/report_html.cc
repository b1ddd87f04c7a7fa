#include "tools/analysis/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "reader/targets/valid_utf8.h"
#include "tools/analysis/report_flame.h"
#include "tools/analysis/report_style.h"

namespace tracewire::tools {
namespace {

// Layout of a timeline, in pixels.
constexpr int kGutter = 190;    // thread names
constexpr int kRowHeight = 14;  // one region depth
constexpr int kRowGap = 2;
constexpr int kThreadGap = 10;
constexpr int kAxisHeight = 24;
constexpr int kMaxDepth = 12;    // deeper rows are not drawn
constexpr int kMaxLanes = 8;     // child process rows
constexpr double kMinWidth = 1;  // narrower regions are drawn in runs
constexpr double kCharWidth = 6.5;
constexpr int kChartHeight = 60;  // a gauge's chart, between its lowest and highest sample
// Task lanes and gauge charts drawn per process (the others are counted in a note).
constexpr size_t kMaxTaskLanes = 64;
constexpr size_t kMaxGauges = 64;

// Colours of the categories, by order of appearance (errors are red, runs grey).
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#76b7b2", "#59a14f", "#edc948",
                                    "#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#bab0ac"};

void Append(std::string* out, absl::string_view text) { out->append(text.data(), text.size()); }

std::string Duration(int64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns >= 1000000000) return absl::StrFormat("%.3f s", v / 1e9);
  if (ns >= 1000000) return absl::StrFormat("%.3f ms", v / 1e6);
  if (ns >= 1000) return absl::StrFormat("%.3f µs", v / 1e3);
  return absl::StrFormat("%d ns", ns);
}

std::string Seconds(double seconds) { return absl::StrFormat("%.6f", seconds); }

// A tick label: "0", "250 µs", "1.5 ms", "2 s".
std::string TickLabel(int64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns == 0) return "0";
  if (ns >= 1000000000) return absl::StrFormat("%g s", v / 1e9);
  if (ns >= 1000000) return absl::StrFormat("%g ms", v / 1e6);
  if (ns >= 1000) return absl::StrFormat("%g µs", v / 1e3);
  return absl::StrFormat("%d ns", ns);
}

// A "nice" tick spacing (1, 2 or 5 times a power of ten ns) for about `ticks` ticks.
int64_t TickStep(int64_t span_ns, int ticks) {
  const double raw = std::max(1.0, static_cast<double>(span_ns) / ticks);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return static_cast<int64_t>(m * power);
  }
  return static_cast<int64_t>(10 * power);
}

void ExitBadge(const ReportProcess& p, std::string* out) {
  if (p.signal.has_value()) {
    absl::StrAppend(out, "<span class=\"badge bad\">signal ", *p.signal, "</span>");
  } else if (!p.exit_code.has_value()) {
    Append(out, "<span class=\"badge unknown\">no exit recorded</span>");
  } else {
    absl::StrAppend(out, "<span class=\"badge ", *p.exit_code == 0 ? "ok" : "bad", "\">exit ",
                    *p.exit_code, "</span>");
  }
}

size_t ErrorCount(const ReportProcess& p) {
  size_t n = 0;
  for (const auto& [id, thread] : p.threads) n += thread.errors.size();
  return n;
}

class Renderer {
 public:
  Renderer(const ReportModel& model, const ReportHtmlOptions& options)
      : model_(model), options_(options) {}

  std::string Render() {
    Append(&out_, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    Append(&out_, "<title>tracewire report: ");
    AppendHtmlEscaped(options_.trace_name, &out_);
    Append(&out_, "</title>\n<style>");
    Append(&out_, kReportStyle);
    Append(&out_, "</style>\n</head>\n<body>\n");
    Summary();
    Tree();
    TopRegions(model_.stats(), "Top regions", "h2");
    RegionFlames();
    for (size_t i = 0; i < model_.processes().size(); ++i) Process(static_cast<int>(i));
    Append(&out_, "</body>\n</html>\n");
    return std::move(out_);
  }

 private:
  void Text(absl::string_view text) { AppendHtmlEscaped(text, &out_); }

  const std::string& Color(uint32_t name) {
    const std::string& full = model_.names()[name];
    const std::string category = full.substr(0, full.find('/'));
    auto [it, inserted] = category_colors_.try_emplace(category, "");
    if (inserted) {
      it->second = kPalette[category_colors_.size() % (sizeof(kPalette) / sizeof(kPalette[0]))];
    }
    return it->second;
  }

  void Summary() {
    Append(&out_, "<h1>tracewire report</h1>\n");
    if (!options_.warning.empty()) {
      Append(&out_, "<p class=\"badge bad\">");
      Text(options_.warning);
      Append(&out_, "</p>\n");
    }
    Append(&out_, "<p class=\"meta\">");
    Text(options_.trace_name);
    int64_t end = 0;
    size_t threads = 0;
    for (const auto& p : model_.processes()) {
      end = std::max(end, p->last_ns);
      threads += p->threads.size();
    }
    absl::StrAppend(
        &out_, " &middot; ", model_.events(), " events &middot; ", model_.processes().size(),
        " process(es) &middot; ", threads, " thread(s) &middot; started ",
        absl::FormatTime("%Y-%m-%d %H:%M:%E6S UTC", model_.start(), absl::UTCTimeZone()),
        " &middot; ", Duration(end), "</p>\n");
  }

  // The process tree, without recursion (a hostile trace may nest sids very deeply).
  void Tree() {
    Append(&out_, "<h2>Processes</h2>\n<ul class=\"tree\">\n");
    const auto& processes = model_.processes();
    std::vector<std::pair<int, size_t>> stack;  // process, next child to visit
    for (size_t root = 0; root < processes.size(); ++root) {
      if (processes[root]->parent >= 0) continue;
      TreeItem(static_cast<int>(root));
      stack.push_back({static_cast<int>(root), 0});
      while (!stack.empty()) {
        auto& [index, next] = stack.back();
        const std::vector<int>& children = processes[index]->children;
        if (next == 0 && !children.empty()) Append(&out_, "<ul>\n");
        if (next < children.size()) {
          const int child = children[next++];
          TreeItem(child);
          stack.push_back({child, 0});
          continue;
        }
        if (!children.empty()) Append(&out_, "</ul>\n");
        Append(&out_, "</li>\n");
        stack.pop_back();
      }
    }
    Append(&out_, "</ul>\n");
  }

  void TreeItem(int index) {
    const ReportProcess& p = *model_.processes()[index];
    absl::StrAppend(&out_, "<li><a href=\"#p", index, "\">");
    Text(p.DisplayName());
    absl::StrAppend(&out_, "</a> <span class=\"meta\">pid ", p.pid, " &middot; ",
                    Duration(p.last_ns - p.first_ns), "</span>");
    ExitBadge(p, &out_);
    if (const size_t errors = ErrorCount(p); errors > 0) {
      absl::StrAppend(&out_, "<span class=\"badge bad\">", errors, " error(s)</span>");
    }
    Append(&out_, "\n");
  }

  void TopRegions(const TraceStats& stats, absl::string_view title, absl::string_view h) {
    absl::StrAppend(&out_, "<", h, ">", title, "</", h, ">\n");
    const std::vector<RegionTime> by_total = stats.TopRegions(options_.top, false);
    if (by_total.empty()) {
      Append(&out_, "<p class=\"note\">No regions.</p>\n");
      return;
    }
    for (const bool by_self : {false, true}) {
      absl::StrAppend(&out_, "<table class=\"top\"><caption>by ", by_self ? "self" : "total",
                      " time</caption>\n<tr><th>total s</th><th>self s</th><th>count</th>"
                      "<th>category/label</th></tr>\n");
      for (const RegionTime& region : by_self ? stats.TopRegions(options_.top, true) : by_total) {
        absl::StrAppend(&out_, "<tr><td>", Seconds(region.total_ns / 1e9), "</td><td>",
                        Seconds(region.self_ns / 1e9), "</td><td>", region.count, "</td><td>");
        Text(region.name);
        Append(&out_, "</td></tr>\n");
      }
      Append(&out_, "</table>\n");
    }
  }

  // A flame graph of the top regions' CPU samples (over the whole trace).
  void RegionFlames() {
    for (const RegionTime& region : model_.stats().TopRegions(options_.top, false)) {
      const FlameGraph* flame = model_.RegionFlame(region.name);
      if (flame == nullptr || flame->total == 0) continue;
      Append(&out_, "<h3>CPU samples inside ");
      Text(region.name);
      absl::StrAppend(&out_, " (flame graph, weight ", flame->total, ")</h3>\n");
      Flame(*flame);
    }
  }

  // The flame graph of `flame` (report_flame.h), as wide as the timelines and their gutter.
  void Flame(const FlameGraph& flame) {
    AppendFlameGraphSvg(flame, options_.timeline_width + kGutter, &out_);
  }

  void Process(int index) {
    const ReportProcess& p = *model_.processes()[index];
    absl::StrAppend(&out_, "<section class=\"process\" id=\"p", index, "\">\n<h2>");
    Text(p.DisplayName());
    ExitBadge(p, &out_);
    Append(&out_, "</h2>\n<p class=\"meta\">sid <code>");
    Text(p.sid);
    absl::StrAppend(&out_, "</code> &middot; pid ", p.pid, " &middot; ",
                    Duration(p.last_ns - p.first_ns), " &middot; ", p.events, " events &middot; ",
                    p.regions, " regions");
    if (p.parent >= 0) {
      absl::StrAppend(&out_, " &middot; started by <a href=\"#p", p.parent, "\">");
      Text(model_.processes()[p.parent]->DisplayName());
      Append(&out_, "</a>");
    }
    Append(&out_, "</p>\n");
    if (!p.argv.empty()) {
      Append(&out_, "<p class=\"meta\">command line <code>");
      Text(p.argv);
      Append(&out_, "</code></p>\n");
    }
    if (ErrorCount(p) > 0) {
      Append(&out_, "<ul class=\"errors\">\n");
      for (const auto& [id, thread] : p.threads) {
        for (const ReportMark& error : thread.errors) {
          absl::StrAppend(&out_, "<li>at +", Duration(error.ns - p.first_ns), " on ");
          Text(thread.name);
          Append(&out_, ": error: ");
          Text(error.text);
          Append(&out_, "</li>\n");
        }
      }
      Append(&out_, "</ul>\n");
    }
    Timeline(index);
    if (p.flame.total > 0) {
      absl::StrAppend(&out_, "<h3>CPU samples (flame graph, weight ", p.flame.total, ")</h3>\n");
      Flame(p.flame);
    }
    Tasks(p);
    Gauges(p);
    if (model_.processes().size() > 1 && p.regions > 0) {
      TopRegions(*p.stats, "Top regions of this process", "h3");
    }
    Append(&out_, "</section>\n");
  }

  // x of time `ns` on the current timeline.
  double X(int64_t ns) const { return kGutter + static_cast<double>(ns - t0_) * scale_; }

  void Timeline(int index) {
    const ReportProcess& p = *model_.processes()[index];
    t0_ = p.first_ns;
    const int64_t span = std::max<int64_t>(p.last_ns - p.first_ns, 1);
    scale_ = static_cast<double>(options_.timeline_width) / static_cast<double>(span);
    svg_.clear();
    hidden_rows_ = 0;
    int y = kAxisHeight;
    for (const auto& [id, thread] : p.threads) y = Thread(thread, y);
    if (!p.child_runs.empty()) y = Children(p, y);
    WriteSvg("timeline", absl::StrCat("timeline of ", p.DisplayName()), p, y);
    if (hidden_rows_ > 0) {
      absl::StrAppend(&out_, "<p class=\"note\">", hidden_rows_, " region(s) nested deeper than ",
                      kMaxDepth, " levels are not drawn.</p>\n");
    }
  }

  // Writes an SVG of class `svg_class` and height `height` on the process's time axis (about
  // 8 ticks, in the process's own time) holding the shapes drawn in svg_.
  void WriteSvg(absl::string_view svg_class, absl::string_view label, const ReportProcess& p,
                int height) {
    const int64_t span = std::max<int64_t>(p.last_ns - p.first_ns, 1);
    const int width = kGutter + options_.timeline_width + 12;
    absl::StrAppend(&out_, "<svg class=\"", svg_class, "\" width=\"", width, "\" height=\"", height,
                    "\" viewBox=\"0 0 ", width, " ", height, "\" role=\"img\" aria-label=\"");
    Text(label);
    Append(&out_, "\">\n");
    const int64_t step = TickStep(span, 8);
    for (int64_t t = 0; t <= span; t += step) {
      const double x = X(p.first_ns + t);
      absl::StrAppendFormat(&out_,
                            "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
                            "<text class=\"tick\" x=\"%.1f\" y=\"14\">%s</text>\n",
                            x, kAxisHeight - 6, x, height, x + 2, TickLabel(t));
    }
    out_ += svg_;
    Append(&out_, "</svg>\n");
  }

  // A row label in the gutter at `y`.
  void RowLabel(absl::string_view name, int y) {
    absl::StrAppendFormat(&svg_, "<text class=\"thread\" x=\"4\" y=\"%d\">", y + 11);
    AppendHtmlEscaped(name.size() > 28 ? absl::StrCat(name.substr(0, 27), "…") : name, &svg_);
    Append(&svg_, "</text>\n");
  }

  // The tasks of a process (after its Timeline(), on the same time axis): a lane per task
  // name, with a row of the tasks' spans (on as many rows as overlap, at most kMaxLanes) and
  // a row per thread that worked for them, holding its segments.
  void Tasks(const ReportProcess& p) {
    if (p.task_lanes.empty()) return;
    Append(&out_, "<h3>Tasks</h3>\n");
    for (size_t i = 0; i < p.task_lanes.size() && i < kMaxTaskLanes; ++i) {
      const ReportTaskLane& lane = p.task_lanes[i];
      const std::string& name = model_.names()[lane.name];
      Append(&out_, "<h4 class=\"task\">");
      Text(lane.begun_before_trace ? "tasks begun before the trace" : name);
      absl::StrAppend(&out_, "</h4>\n<p class=\"meta\">", lane.tasks, " tasks &middot; ",
                      lane.segments, " segments on ", lane.thread_segments.size(), " thread(s):");
      const char* separator = " ";
      for (const auto& [id, segments] : lane.thread_segments) {
        Append(&out_, separator);
        separator = ", ";
        Text(ThreadName(p, id));
        absl::StrAppend(&out_, " ", segments.size());
      }
      Append(&out_, "</p>\n");
      svg_.clear();
      crowded_row_ = 0;
      int y = kAxisHeight;
      if (!lane.spans.empty()) {
        RowLabel("tasks", y);
        std::vector<ReportRegion> spans = lane.spans;
        std::stable_sort(
            spans.begin(), spans.end(),
            [](const ReportRegion& a, const ReportRegion& b) { return a.begin_ns < b.begin_ns; });
        std::vector<int64_t> lane_end;
        std::vector<std::vector<ReportRegion>> rows;
        size_t overflow = 0;
        for (const ReportRegion& span : spans) {
          size_t row = 0;
          while (row < lane_end.size() && lane_end[row] > span.begin_ns) ++row;
          if (row == lane_end.size()) {
            if (lane_end.size() < static_cast<size_t>(kMaxLanes)) {
              lane_end.push_back(0);
              rows.emplace_back();
            } else {
              row = lane_end.size() - 1;  // the last row takes the overflow
              ++overflow;
            }
          }
          lane_end[row] = std::max(lane_end[row], span.end_ns);
          rows[row].push_back(span);
        }
        if (rows.size() == static_cast<size_t>(kMaxLanes) && overflow > 0) {
          crowded_row_ = rows.back().size();
        }
        for (const std::vector<ReportRegion>& row : rows) {
          Row(row, y, "tasks");
          y += kRowHeight + kRowGap;
        }
        y += kThreadGap;
      }
      for (const auto& [id, segments] : lane.thread_segments) {
        RowLabel(ThreadName(p, id), y);
        Row(segments, y, "segments");
        y += kRowHeight + kRowGap + kThreadGap;
      }
      WriteSvg("tasks", absl::StrCat("tasks ", name), p, y);
      if (crowded_row_ > 0) {
        absl::StrAppend(&out_, "<p class=\"note\">More than ", kMaxLanes,
                        " tasks at a time: the last row holds ", crowded_row_,
                        " of them, overlapping.</p>\n");
      }
    }
    if (p.task_lanes.size() > kMaxTaskLanes) {
      uint64_t tasks = 0;
      for (size_t i = kMaxTaskLanes; i < p.task_lanes.size(); ++i) tasks += p.task_lanes[i].tasks;
      absl::StrAppend(&out_, "<p class=\"note\">", p.task_lanes.size() - kMaxTaskLanes,
                      " more task names (", tasks,
                      " tasks) are not drawn; <code>tracewire stats</code> lists them all.</p>\n");
    }
  }

  static std::string ThreadName(const ReportProcess& p, uint64_t id) {
    const auto it = p.threads.find(id);
    if (it == p.threads.end() || it->second.name.empty()) return absl::StrCat("thread ", id);
    return it->second.name;
  }

  // A chart per gauge of a process (after its Timeline(), on the same time axis): its value
  // as a step line from sample to sample, between its lowest and highest sample.
  void Gauges(const ReportProcess& p) {
    if (p.gauges.empty()) return;
    Append(&out_, "<h3>Gauges</h3>\n");
    for (size_t g = 0; g < p.gauges.size() && g < kMaxGauges; ++g) {
      const ReportGauge& gauge = p.gauges[g];
      std::vector<ReportGauge::Sample> samples = gauge.samples;
      std::stable_sort(
          samples.begin(), samples.end(),
          [](const ReportGauge::Sample& a, const ReportGauge::Sample& b) { return a.ns < b.ns; });
      int64_t min = samples.front().value;
      int64_t max = min;
      for (const ReportGauge::Sample& sample : samples) {
        min = std::min(min, sample.value);
        max = std::max(max, sample.value);
      }
      std::string title = gauge.name;
      if (!gauge.unit.empty()) absl::StrAppend(&title, " (", gauge.unit, ")");
      Append(&out_, "<h4 class=\"gauge\">");
      Text(title);
      absl::StrAppend(&out_, "</h4>\n<p class=\"meta\">", samples.size(), " samples &middot; min ",
                      min, " &middot; max ", max, " &middot; last ", gauge.samples.back().value);
      // More samples than pixel columns: the lowest, highest and last of each column (at
      // most 3 points per column, in time order).
      std::vector<ReportGauge::Sample> points;
      if (samples.size() > static_cast<size_t>(options_.timeline_width)) {
        size_t begin = 0;
        while (begin < samples.size()) {
          const int64_t column = Column(samples[begin].ns);
          size_t end = begin + 1;
          while (end < samples.size() && Column(samples[end].ns) == column) ++end;
          size_t low = begin, high = begin;
          for (size_t i = begin; i < end; ++i) {
            if (samples[i].value < samples[low].value) low = i;
            if (samples[i].value > samples[high].value) high = i;
          }
          size_t previous = end;  // none
          for (const size_t i : {std::min(low, high), std::max(low, high), end - 1}) {
            if (i != previous) points.push_back(samples[i]);
            previous = i;
          }
          begin = end;
        }
        absl::StrAppend(&out_, " &middot; drawn as ", points.size(),
                        " points: the lowest, highest and last sample of each pixel column");
      } else {
        points = std::move(samples);
      }
      Append(&out_, "</p>\n");
      svg_.clear();
      const int top = kAxisHeight;
      const double range = static_cast<double>(max) - static_cast<double>(min);
      auto y_of = [&](int64_t v) {
        if (range <= 0) return top + kChartHeight / 2.0;
        return top + (static_cast<double>(max) - static_cast<double>(v)) / range * kChartHeight;
      };
      absl::StrAppendFormat(&svg_,
                            "<text class=\"tick\" x=\"4\" y=\"%d\">%d</text>"
                            "<text class=\"tick\" x=\"4\" y=\"%d\">%d</text>\n"
                            "<line class=\"base\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
                            top + 9, max, top + kChartHeight, min, kGutter, top + kChartHeight,
                            kGutter + options_.timeline_width, top + kChartHeight);
      absl::StrAppendFormat(&svg_, "<path class=\"gauge\" d=\"M%.1f %.1f", X(points[0].ns),
                            y_of(points[0].value));
      for (size_t i = 1; i < points.size(); ++i) {
        absl::StrAppendFormat(&svg_, "H%.1fV%.1f", X(points[i].ns), y_of(points[i].value));
      }
      absl::StrAppendFormat(&svg_, "H%.1f\"><title>", X(p.last_ns));
      AppendHtmlEscaped(title, &svg_);
      Append(&svg_, "</title></path>\n");
      WriteSvg("gauge", absl::StrCat("gauge ", title), p, top + kChartHeight + 8);
    }
    if (p.gauges.size() > kMaxGauges) {
      absl::StrAppend(&out_, "<p class=\"note\">", p.gauges.size() - kMaxGauges,
                      " more gauges are not drawn; <code>tracewire stats</code> lists them "
                      "all.</p>\n");
    }
  }

  // The pixel column of time `ns` on the current timeline.
  int64_t Column(int64_t ns) const { return static_cast<int64_t>(std::floor(X(ns) - kGutter)); }

  // Draws one thread from `y`; returns the y below it.
  int Thread(const ReportThread& thread, int y) {
    const int rows = std::min<int>(std::max<int>(thread.rows.size(), 1), kMaxDepth);
    absl::StrAppendFormat(&svg_, "<text class=\"thread\" x=\"4\" y=\"%d\">", y + 11);
    AppendHtmlEscaped(thread.name.size() > 28 ? thread.name.substr(0, 27) + "…" : thread.name,
                      &svg_);
    Append(&svg_, "</text>\n");
    for (size_t depth = 0; depth < thread.rows.size(); ++depth) {
      if (depth >= static_cast<size_t>(kMaxDepth)) {
        for (const ReportRegion& region : thread.rows[depth]) hidden_rows_ += region.count;
        continue;
      }
      Row(thread.rows[depth], y + static_cast<int>(depth) * (kRowHeight + kRowGap));
    }
    const int bottom = y + rows * (kRowHeight + kRowGap);
    for (const ReportMark& error : thread.errors) {
      absl::StrAppendFormat(&svg_, "<path class=\"error\" d=\"M%.1f %d l5 9 h-10 z\"><title>",
                            X(error.ns), y);
      Append(&svg_, "error: ");
      AppendHtmlEscaped(error.text, &svg_);
      Append(&svg_, "</title></path>\n");
    }
    return bottom + kThreadGap;
  }

  // A run of regions too narrow to draw one by one.
  struct Run {
    double x0 = 0;
    double x1 = 0;
    uint64_t count = 0;
    int64_t total_ns = 0;
    bool overlapping = false;  // holds shapes that overlap (only task rows have them)
  };

  void FlushRun(Run& run, int y, absl::string_view what) {
    if (run.count == 0) return;
    absl::StrAppendFormat(&svg_,
                          "<rect class=\"run\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
                          "<title>%d %s narrower than a pixel%s, %s in all</title></rect>\n",
                          run.x0, y, std::max(run.x1 - run.x0, kMinWidth), kRowHeight, run.count,
                          what, run.overlapping ? " or overlapping" : "", Duration(run.total_ns));
    run = Run();
  }

  // Adds `count` regions from x0 to x1, `ns` long in all, to the run.
  void AddToRun(Run& run, double x0, double x1, int64_t ns, int y, absl::string_view what,
                uint64_t count = 1) {
    if (run.count > 0 && x0 > run.x1 + kMinWidth) FlushRun(run, y, what);
    if (run.count == 0) run.x0 = x0;
    run.x1 = std::max(run.x1, x1);
    run.count += count;
    run.total_ns += ns;
  }

  void Row(const std::vector<ReportRegion>& regions, int y, absl::string_view what = "regions") {
    Run run;
    // Shapes that overlap the one drawn before them (tasks on a crowded row) join a run too,
    // so that a row holds at most about two shapes per pixel.
    constexpr double kOverlap = 0.05;
    double drawn_end = std::numeric_limits<double>::lowest();
    for (const ReportRegion& region : regions) {
      const double x0 = X(region.begin_ns);
      const double x1 = X(region.end_ns);
      if (region.count > 1) {
        // Regions the model compacted: too narrow at this width (kCompactedWidth or less).
        AddToRun(run, x0, x1, region.busy_ns, y, what, region.count);
        continue;
      }
      const int64_t ns = region.end_ns - region.begin_ns;
      const bool overlaps = x0 < drawn_end - kOverlap || (run.count > 0 && x0 < run.x1 - kOverlap);
      if (x1 - x0 < kMinWidth || overlaps) {
        AddToRun(run, x0, x1, ns, y, what);
        run.overlapping = run.overlapping || overlaps;
        continue;
      }
      FlushRun(run, y, what);
      drawn_end = x1;
      const std::string& name = model_.names()[region.name];
      absl::StrAppendFormat(&svg_,
                            "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                            "<title>",
                            x0, y, x1 - x0, kRowHeight, Color(region.name));
      AppendHtmlEscaped(name, &svg_);
      absl::StrAppend(&svg_, " &middot; ", Duration(ns), "</title></rect>\n");
      const absl::string_view label = absl::string_view(name).substr(name.find('/') + 1);
      if (x1 - x0 > kCharWidth * static_cast<double>(label.size()) + 6) {
        absl::StrAppendFormat(&svg_, "<text class=\"label\" x=\"%.1f\" y=\"%d\">", x0 + 3, y + 11);
        AppendHtmlEscaped(label, &svg_);
        Append(&svg_, "</text>\n");
      }
    }
    FlushRun(run, y, what);
  }

  // The child processes, on as many lanes as overlap (at most kMaxLanes).
  int Children(const ReportProcess& p, int y) {
    absl::StrAppendFormat(&svg_, "<text class=\"thread\" x=\"4\" y=\"%d\">children</text>\n",
                          y + 11);
    std::vector<int64_t> lane_end;
    std::vector<std::vector<const ReportChild*>> lanes;
    for (const ReportChild& child : p.child_runs) {
      size_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > child.begin_ns) ++lane;
      if (lane == lane_end.size()) {
        if (lane_end.size() < static_cast<size_t>(kMaxLanes)) {
          lane_end.push_back(0);
          lanes.emplace_back();
        } else {
          lane = lane_end.size() - 1;  // the last lane takes the overflow
        }
      }
      lane_end[lane] = std::max(lane_end[lane], child.end_ns);
      lanes[lane].push_back(&child);
    }
    for (size_t lane = 0; lane < lanes.size(); ++lane) {
      const int row_y = y + static_cast<int>(lane) * (kRowHeight + kRowGap);
      Run run;
      for (const ReportChild* child : lanes[lane]) {
        const double x0 = X(child->begin_ns);
        const double x1 = X(child->end_ns);
        if (x1 - x0 < kMinWidth) {
          AddToRun(run, x0, x1, child->end_ns - child->begin_ns, row_y, "child processes");
          continue;
        }
        FlushRun(run, row_y, "child processes");
        const bool failed = child->code.has_value() && *child->code != 0;
        if (child->process >= 0) absl::StrAppend(&svg_, "<a href=\"#p", child->process, "\">");
        absl::StrAppendFormat(&svg_,
                              "<rect class=\"child%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                              "height=\"%d\"><title>",
                              failed ? " failed" : "", x0, row_y, x1 - x0, kRowHeight);
        AppendHtmlEscaped(child->name, &svg_);
        absl::StrAppend(&svg_, " &middot; pid ", child->pid, " &middot; ",
                        Duration(child->end_ns - child->begin_ns));
        if (child->code.has_value()) absl::StrAppend(&svg_, " &middot; exit ", *child->code);
        Append(&svg_, "</title></rect>");
        if (child->process >= 0) Append(&svg_, "</a>");
        Append(&svg_, "\n");
        // The program's name (and a failing exit code) on the bar when it fits.
        absl::string_view program = absl::string_view(child->name).substr(0, child->name.find(' '));
        program = program.substr(program.rfind('/') + 1);
        std::string label(program);
        if (failed) absl::StrAppend(&label, " (exit ", *child->code, ")");
        if (x1 - x0 > kCharWidth * static_cast<double>(label.size()) + 6) {
          absl::StrAppendFormat(&svg_, "<text class=\"label\" x=\"%.1f\" y=\"%d\">", x0 + 3,
                                row_y + 11);
          AppendHtmlEscaped(label, &svg_);
          Append(&svg_, "</text>\n");
        }
      }
      FlushRun(run, row_y, "child processes");
    }
    return y + static_cast<int>(std::max<size_t>(lanes.size(), 1)) * (kRowHeight + kRowGap) +
           kThreadGap;
  }

  const ReportModel& model_;
  const ReportHtmlOptions& options_;
  std::string out_;
  std::string svg_;  // the shapes of the timeline being drawn
  int64_t t0_ = 0;
  double scale_ = 1;
  uint64_t hidden_rows_ = 0;
  size_t crowded_row_ = 0;  // tasks on the last row of the current lane, if it overflowed
  absl::flat_hash_map<std::string, std::string> category_colors_;
};

}  // namespace

void AppendHtmlEscaped(absl::string_view text, std::string* out) {
  std::string scratch;
  for (const char c : targets::ValidUtf8(text, &scratch)) {
    switch (c) {
      case '&':
        out->append("&amp;");
        break;
      case '<':
        out->append("&lt;");
        break;
      case '>':
        out->append("&gt;");
        break;
      case '"':
        out->append("&quot;");
        break;
      case '\'':
        out->append("&#39;");
        break;
      default:
        // Control characters (a hostile trace's) are not text: U+FFFD.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out->append("\xef\xbf\xbd");
        } else {
          out->push_back(c);
        }
    }
  }
}

std::string RenderReportHtml(const ReportModel& model, const ReportHtmlOptions& options) {
  return Renderer(model, options).Render();
}

}  // namespace tracewire::tools
