#include "runtime/config_params.h"

#include <fnmatch.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

// One of the program's settings, as told by tw_cmd_set_config*.
struct ConfigSetting {
  std::string key;
  std::optional<std::string> value;
  std::string scope;
};

struct Reporting {
  std::mutex mu;
  std::vector<std::string> patterns;  // TRACEWIRE_CONFIG_PARAMS
  std::vector<std::string> env_vars;  // TRACEWIRE_ENV_VARS
  std::vector<ConfigSetting> settings;
  bool listed = false;  // tw_cmd_list_config has run
};

Reporting& State() {
  static Reporting* state = new Reporting();
  return *state;
}

std::atomic<bool> g_automatic_ancestry{true};

// git's scope for a setting of unknown origin (and for trace2_cmd_set_config).
constexpr char kUnknownScope[] = "unknown";
// git 2.42 and later report environment variables with the "command" scope.
constexpr char kEnvScope[] = "command";

bool MatchesAny(const std::vector<std::string>& patterns, const std::string& key) {
  for (const std::string& pattern : patterns) {
    if (ConfigPatternMatches(pattern, key)) return true;
  }
  return false;
}

void EmitDefParam(const char* file, int line, const ConfigSetting& setting) {
  tw_def_param_fl(file, line, setting.key.c_str(),
                  setting.value.has_value() ? setting.value->c_str() : nullptr,
                  setting.scope.c_str());
}

}  // namespace

std::vector<std::string> SplitReportingList(absl::string_view value) {
  std::vector<std::string> items;
  if (value.empty()) return items;
  if (value.back() == ',') value.remove_suffix(1);  // "a,b," is two items, as in git
  for (absl::string_view item : SplitByChar(value, ',')) {
    items.emplace_back(StripAsciiWhitespace(item));
  }
  return items;
}

bool ConfigPatternMatches(const std::string& pattern, const std::string& key) {
  // Without FNM_PATHNAME and FNM_PERIOD, fnmatch(3) treats '/' and a leading '.' like any
  // other character, as wildmatch without WM_PATHNAME does.
  return fnmatch(pattern.c_str(), key.c_str(), FNM_CASEFOLD) == 0;
}

void ConfigureReporting(const tw_settings& settings) {
  Reporting& r = State();
  std::lock_guard<std::mutex> lock(r.mu);
  r.patterns = SplitReportingList(settings.config_params == nullptr ? "" : settings.config_params);
  r.env_vars = SplitReportingList(settings.env_vars == nullptr ? "" : settings.env_vars);
  // relaxed: a setting, publishes nothing.
  g_automatic_ancestry.store(settings.no_ancestry == 0, std::memory_order_relaxed);
}

bool AutomaticAncestryEnabled() {
  return g_automatic_ancestry.load(std::memory_order_relaxed);  // relaxed: as above
}

}  // namespace tracewire::runtime

using tracewire::runtime::ConfigSetting;
using tracewire::runtime::Reporting;

extern "C" {

void tw_cmd_set_config_fl(const char* file, int line, const char* key, const char* value,
                          const char* scope) {
  if (key == nullptr) return;
  Reporting& r = tracewire::runtime::State();
  ConfigSetting setting{key, std::nullopt,
                        scope == nullptr ? tracewire::runtime::kUnknownScope : scope};
  if (value != nullptr) setting.value = value;
  bool report = false;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    ConfigSetting* known = nullptr;
    for (ConfigSetting& s : r.settings) {
      if (s.key == setting.key && s.scope == setting.scope) known = &s;
    }
    if (known != nullptr) {
      known->value = setting.value;
    } else {
      r.settings.push_back(setting);
    }
    report = r.listed && tracewire::runtime::MatchesAny(r.patterns, setting.key);
  }
  if (report) tracewire::runtime::EmitDefParam(file, line, setting);
}

void tw_cmd_list_config_fl(const char* file, int line) {
  Reporting& r = tracewire::runtime::State();
  std::vector<ConfigSetting> matching;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    r.listed = true;
    for (const ConfigSetting& s : r.settings) {
      if (tracewire::runtime::MatchesAny(r.patterns, s.key)) matching.push_back(s);
    }
  }
  for (const ConfigSetting& s : matching) tracewire::runtime::EmitDefParam(file, line, s);
}

void tw_cmd_list_env_vars_fl(const char* file, int line) {
  Reporting& r = tracewire::runtime::State();
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    names = r.env_vars;
  }
  for (const std::string& name : names) {
    const char* value = getenv(name.c_str());
    if (value == nullptr || *value == '\0') continue;
    tw_def_param_fl(file, line, name.c_str(), value, tracewire::runtime::kEnvScope);
  }
}

}  // extern "C"
