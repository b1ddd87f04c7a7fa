#include "runtime/category_filter.h"

#include <string>
#include <vector>

#include "runtime/config_params.h"

namespace tracewire::runtime {
namespace {

struct CategoryFilter {
  std::vector<std::string> include;  // empty: "*"
  std::vector<std::string> exclude;
};

// Set before tracing is enabled (tw_initialize), read afterwards: never changes while
// events are recorded. Allocated on first use, never freed (threads may record at exit).
CategoryFilter* g_filter = nullptr;

}  // namespace

void SetCategoryFilter(const char* value) {
  if (value == nullptr || *value == '\0') {
    g_filter = nullptr;
    return;
  }
  auto* filter = new CategoryFilter;
  for (std::string& item : SplitReportingList(value)) {
    if (item.empty()) continue;
    if (item[0] == '-') {
      if (item.size() > 1) filter->exclude.push_back(item.substr(1));
    } else {
      filter->include.push_back(std::move(item));
    }
  }
  g_filter = filter;
}

bool CategoryFilterActive() { return g_filter != nullptr; }

bool CategoryRecorded(absl::string_view category) {
  const CategoryFilter* filter = g_filter;
  if (filter == nullptr) return true;
  const std::string name(category);
  bool included = filter->include.empty();
  for (const std::string& pattern : filter->include) {
    if (ConfigPatternMatches(pattern, name)) {
      included = true;
      break;
    }
  }
  if (!included) return false;
  for (const std::string& pattern : filter->exclude) {
    if (ConfigPatternMatches(pattern, name)) return false;
  }
  return true;
}

}  // namespace tracewire::runtime
