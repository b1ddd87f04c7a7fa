// The report page's stylesheet (report_html.cc writes it into the page's <style>).
#ifndef TRACEWIRE_TOOLS_ANALYSIS_REPORT_STYLE_H_
#define TRACEWIRE_TOOLS_ANALYSIS_REPORT_STYLE_H_

namespace tracewire::tools {

inline constexpr char kReportStyle[] = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 20px 28px; color: #1d232a; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 1px solid #d8dee4; padding-bottom: 3px; }
h3 { font-size: 15px; margin: 14px 0 4px; }
.meta { color: #57606a; margin: 2px 0; }
code { font: 12px ui-monospace, monospace; background: #f3f5f7; padding: 1px 3px; border-radius: 3px; word-break: break-all; }
.badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 7px; border-radius: 9px; margin-left: 6px; vertical-align: 2px; }
.ok { background: #dafbe1; color: #116329; }
.bad { background: #ffebe9; color: #a40e26; }
.unknown { background: #eaeef2; color: #57606a; }
ul.tree, ul.tree ul { list-style: none; padding-left: 18px; margin: 2px 0; }
ul.tree { padding-left: 0; }
ul.errors { margin: 4px 0; padding-left: 18px; }
ul.errors li { color: #a40e26; }
table.top { border-collapse: collapse; margin: 4px 24px 8px 0; display: inline-table; vertical-align: top; }
table.top th, table.top td { padding: 2px 8px; text-align: right; border-bottom: 1px solid #eaeef2; }
table.top th:last-child, table.top td:last-child { text-align: left; }
svg.timeline { display: block; margin: 6px 0 4px; background: #fff; }
svg text { font: 11px system-ui, sans-serif; fill: #1d232a; }
svg text.thread { font-weight: 600; }
svg text.tick { fill: #57606a; }
svg text.label { fill: #fff; pointer-events: none; }
svg line.grid { stroke: #eaeef2; }
svg rect.run { fill: #9aa5b1; }
svg rect.child { fill: #6e7781; }
svg rect.child.failed { fill: #cf222e; }
svg path.error { fill: #cf222e; }
svg path.gauge { fill: none; stroke: #4e79a7; stroke-width: 1.5; }
svg line.base { stroke: #d8dee4; }
h4 { font-size: 14px; margin: 10px 0 2px; }
.note { color: #57606a; font-size: 12px; }
)css";

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_ANALYSIS_REPORT_STYLE_H_
