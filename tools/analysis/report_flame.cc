#include "tools/analysis/report_flame.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/analysis/report_html.h"

namespace tracewire::tools {
namespace {

std::string HtmlEscaped(absl::string_view text) {
  std::string out;
  AppendHtmlEscaped(text, &out);
  return out;
}

// A warm color from the frame's name (the same name, the same color).
std::string FlameColor(absl::string_view name) {
  uint32_t hash = 2166136261u;
  for (char c : name) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  return absl::StrFormat("rgb(%d,%d,%d)", 205 + hash % 50, 80 + (hash >> 8) % 130,
                         40 + (hash >> 16) % 40);
}

}  // namespace

void AppendFlameGraphSvg(const FlameGraph& flame, double width, std::string* out) {
  struct Node {
    std::string name;
    uint64_t weight = 0;
    std::map<std::string, size_t> children;
  };
  std::vector<Node> nodes(1);
  size_t depth = 0;
  for (const auto& [frames, weight] : flame.stacks) {
    size_t node = 0;
    nodes[0].weight += weight;
    for (const std::string& frame : frames) {
      auto [it, added] = nodes[node].children.try_emplace(frame, nodes.size());
      if (added) {
        nodes.push_back(Node{frame, 0, {}});
      }
      node = it->second;
      nodes[node].weight += weight;
    }
    depth = std::max(depth, frames.size());
  }
  constexpr int kFrameHeight = 16;
  const int height = static_cast<int>(depth) * kFrameHeight;
  absl::StrAppend(out, "<svg class=\"flame\" xmlns=\"http://www.w3.org/2000/svg\" width=\"", width,
                  "\" height=\"", height, "\">\n");
  const double scale = width / static_cast<double>(std::max<uint64_t>(nodes[0].weight, 1));
  // (node, level, x) to draw; the root itself is not drawn.
  struct Item {
    size_t node;
    size_t level;
    double x;
  };
  std::vector<Item> todo;
  auto push_children = [&](const Item& item) {
    double x = item.x;
    for (const auto& [name, child] : nodes[item.node].children) {
      todo.push_back({child, item.level + 1, x});
      x += nodes[child].weight * scale;
    }
  };
  push_children({0, 0, 0});
  while (!todo.empty()) {
    const Item item = todo.back();
    todo.pop_back();
    const Node& node = nodes[item.node];
    const double w = node.weight * scale;
    if (w < 0.5) continue;
    const double y = height - static_cast<double>(item.level) * kFrameHeight;
    absl::StrAppendFormat(out,
                          "<g><title>%s (weight %d, %.1f %%)</title><rect x=\"%.1f\" "
                          "y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
                          HtmlEscaped(node.name), node.weight,
                          100.0 * node.weight / std::max<uint64_t>(nodes[0].weight, 1), item.x,
                          static_cast<int>(y), w, kFrameHeight - 1, FlameColor(node.name));
    if (w > 40) {
      // About 7 px per character at the default font size.
      const size_t chars = static_cast<size_t>((w - 6) / 7);
      std::string label = node.name.size() > chars
                              ? node.name.substr(0, chars > 2 ? chars - 2 : 0) + ".."
                              : node.name;
      absl::StrAppendFormat(out, "<text x=\"%.1f\" y=\"%d\">%s</text>", item.x + 3,
                            static_cast<int>(y) + kFrameHeight - 4, HtmlEscaped(label));
    }
    out->append("</g>\n");
    push_children(item);
  }
  out->append("</svg>\n");
}

}  // namespace tracewire::tools
