// Reporting the program's settings and chosen environment variables as def_param events
// (git's trace2_cmd_list_config, trace2_cmd_set_config and trace2_cmd_list_env_vars), and
// the switches of the automatic process reports.
#ifndef TRACEWIRE_RUNTIME_CONFIG_PARAMS_H_
#define TRACEWIRE_RUNTIME_CONFIG_PARAMS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {

// Splits a TRACEWIRE_CONFIG_PARAMS or TRACEWIRE_ENV_VARS value as git splits
// GIT_TRACE2_CONFIG_PARAMS: at every ',', each item trimmed of surrounding whitespace.
// Empty items between commas are kept (they match nothing); one trailing comma adds none.
std::vector<std::string> SplitReportingList(absl::string_view value);

// True if `key` matches the wildcard `pattern` as git's wildmatch(pattern, key,
// WM_CASEFOLD) decides for config keys: '*' and '?' match any character ('/' and '.'
// included), [...] classes, '\' escapes, letters compared without case.
bool ConfigPatternMatches(const std::string& pattern, const std::string& key);

// Takes the reporting settings of tw_initialize: the config patterns, the environment
// variable list and whether cmd_ancestry is recorded automatically.
void ConfigureReporting(const tw_settings& settings);

// Whether tw_cmd_start records cmd_ancestry by itself.
bool AutomaticAncestryEnabled();

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_CONFIG_PARAMS_H_
