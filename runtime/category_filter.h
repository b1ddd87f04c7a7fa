// The category filter (TRACEWIRE_CATEGORIES): which categories a traced process records.
// Comma-separated wildcard patterns with the syntax of TRACEWIRE_CONFIG_PARAMS; a pattern
// with a leading '-' excludes. A category is recorded if it matches an include pattern (no
// include pattern at all: "*") and no exclude pattern. Set once, before tracing is enabled;
// the call sites cache the decision (SiteEntry::filtered, the tw_callsite word).
#ifndef TRACEWIRE_RUNTIME_CATEGORY_FILTER_H_
#define TRACEWIRE_RUNTIME_CATEGORY_FILTER_H_

#include "absl/strings/string_view.h"

namespace tracewire::runtime {

// Replaces the filter by the patterns of `value` (nullptr or empty: record everything).
void SetCategoryFilter(const char* value);

// Whether events of `category` are recorded (an absent category is matched as "").
bool CategoryRecorded(absl::string_view category);

// True when the filter excludes anything (so callers can skip the match when it does not).
bool CategoryFilterActive();

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_CATEGORY_FILTER_H_
