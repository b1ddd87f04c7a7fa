// The runtime's settings: the TRACEWIRE* environment variables, and the same keys in a
// user settings file ($XDG_CONFIG_HOME/tracewire/config, else ~/.config/tracewire/config)
// and a system settings file (/etc/tracewire.conf). Precedence: a non-empty environment
// variable, then the user file, then the system file. The files are read once, at the
// first lookup (tw_initialize); a bad line warns once on stderr and is ignored. Each value
// remembers where it came from, so that a warning about it (setting_checks.h) names it.
#ifndef TRACEWIRE_RUNTIME_SETTINGS_FILE_H_
#define TRACEWIRE_RUNTIME_SETTINGS_FILE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {

// Largest settings file read; the rest of a longer file is ignored with a warning.
inline constexpr size_t kMaxSettingsFileSize = 64 * 1024;

// True if `name` is a setting a settings file may set (TRACEWIRE, TRACEWIRE_APP_VERSION,
// ...; not the variables the runtime sets for its children, nor TRACEWIRE_CLOCK, which is
// read before the files).
bool IsFileSettingName(absl::string_view name);

// The result of parsing one settings file.
struct ParsedSettings {
  std::vector<std::pair<std::string, std::string>> values;  // in file order
  std::vector<int> line_numbers;                            // values[i]'s line (from 1)
  int bad_lines = 0;
  std::string first_problem;  // "line N: ..." of the first bad line (no file content)
};

// Parses `key = value` lines: blank lines and lines starting with '#' or ';' are skipped,
// key and value are trimmed of spaces and tabs, a value may be wrapped in double quotes
// (kept as is inside), a later line wins over an earlier one. A line without '=', with an
// empty or unknown key, or with a NUL byte is bad.
ParsedSettings ParseSettingsText(absl::string_view text);

// The user settings file for these environment values ("" if neither is usable):
// $XDG_CONFIG_HOME/tracewire/config if XDG_CONFIG_HOME is an absolute path, else
// $HOME/.config/tracewire/config ("" too if the path would be longer than PATH_MAX).
std::string UserSettingsPath(const char* xdg_config_home, const char* home);

// Where a setting's value came from.
struct SettingSource {
  enum class Kind { kNone, kEnvironment, kFile, kProgram };
  Kind kind = Kind::kNone;
  // The environment variable's name (also the key in a settings file), or for kProgram the
  // tw_settings field's ("stack_events").
  const char* name = "";
  const char* path = nullptr;  // kFile: the settings file
  int line = 0;                // kFile: the value's line in it
};

// A setting's value and its source.
struct SettingValue {
  const char* value = nullptr;  // nullptr: set nowhere
  SettingSource source;
};

// The value of setting `name` (environment > user file > system file) with its source. The
// pointers stay valid for the life of the process.
SettingValue LookupSetting(const char* name);

// LookupSetting(name).value.
const char* Setting(const char* name);

// The settings tw_initialize uses: every field of tw_settings from LookupSetting(), each
// value checked (setting_checks.h: a bad one warns and takes its fallback). Sets
// *tracing_refused (when not null) if a setting turns tracing off: a flight-recorder size
// that is not valid must not stream every event to the target.
tw_settings LoadSettings(bool* tracing_refused = nullptr);

// Tests only (not part of the API): reads the system settings from `path` instead of
// /etc/tracewire.conf. Must be called before the first Setting() of the process.
void SetSystemSettingsPathForTesting(const char* path);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SETTINGS_FILE_H_
