#include "runtime/settings_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "absl/container/flat_hash_map.h"
#include "runtime/setting_checks.h"
#include "runtime/startup_path.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

// Every setting a file may set: the environment names of docs/api.md.
constexpr absl::string_view kFileSettings[] = {
    "TRACEWIRE",
    "TRACEWIRE_APP_VERSION",
    "TRACEWIRE_GENERATION_MS",
    "TRACEWIRE_GENERATION_BYTES",
    "TRACEWIRE_COMPRESS",
    "TRACEWIRE_REDACT",
    "TRACEWIRE_STACKS",
    "TRACEWIRE_MAX_FILES",
    "TRACEWIRE_DST_DEBUG",
    "TRACEWIRE_CONFIG_PARAMS",
    "TRACEWIRE_ENV_VARS",
    "TRACEWIRE_ANCESTRY",
    "TRACEWIRE_WRITE_TIMEOUT_MS",
    "TRACEWIRE_FLIGHT_RECORDER",
    "TRACEWIRE_FLIGHT_SIGNAL",
    "TRACEWIRE_FLIGHT_ON_ERROR",
    "TRACEWIRE_CATEGORIES",
    "TRACEWIRE_CPU_PROFILE",
};

// The system-wide settings file.
TRACEWIRE_STARTUP_DATA char g_default_system_path[] = "/etc/tracewire.conf";
TRACEWIRE_STARTUP_DATA const char* g_system_path = g_default_system_path;
TRACEWIRE_STARTUP_DATA char g_xdg_config_home_variable[] = "XDG_CONFIG_HOME";
TRACEWIRE_STARTUP_DATA char g_home_variable[] = "HOME";
TRACEWIRE_STARTUP_DATA char g_xdg_suffix[] = "/tracewire/config";
TRACEWIRE_STARTUP_DATA char g_home_suffix[] = "/.config/tracewire/config";

// A value read from a settings file, and its line there.
struct FileValue {
  std::string value;
  int line = 0;
};
using SettingsMap = absl::flat_hash_map<std::string, FileValue>;

// Reads the whole regular file at `path` (at most kMaxSettingsFileSize bytes). Returns
// false if it does not exist; warns about other failures and a cut.
TRACEWIRE_STARTUP_PATH bool ReadSettingsFile(const char* path, std::string* text) {
  // O_NONBLOCK: a FIFO at that path must not hang the program.
  const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno != ENOENT && errno != ENOTDIR) {
      fprintf(stderr, "warning: tracewire: cannot read settings file '%s': %s\n", path,
              strerror(errno));
    }
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    fprintf(stderr, "warning: tracewire: settings file '%s' is not a regular file\n", path);
    close(fd);
    return false;
  }
  text->resize(kMaxSettingsFileSize + 1);
  size_t size = 0;
  while (size < text->size()) {
    const ssize_t n = read(fd, text->data() + size, text->size() - size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size += static_cast<size_t>(n);
  }
  close(fd);
  if (size > kMaxSettingsFileSize) {
    fprintf(stderr,
            "warning: tracewire: settings file '%s' is longer than %zu bytes; the rest is "
            "ignored\n",
            path, kMaxSettingsFileSize);
    size = kMaxSettingsFileSize;
  }
  text->resize(size);
  return true;
}

// Nothing is allocated unless the file exists: the common untraced start-up (no files) must
// not be the process's first malloc.
TRACEWIRE_STARTUP_PATH SettingsMap LoadFile(const char* path) {
  SettingsMap map;
  std::string text;
  if (path[0] == '\0' || !ReadSettingsFile(path, &text)) return map;
  ParsedSettings parsed = ParseSettingsText(text);
  if (parsed.bad_lines > 0) {
    std::string more;
    if (parsed.bad_lines > 1) {
      more = Cat({" (", Dec(parsed.bad_lines - 1), " more bad line",
                  parsed.bad_lines > 2 ? "s" : "", ")"});
    }
    fprintf(stderr, "warning: tracewire: settings file '%s': %s; ignored%s\n", path,
            parsed.first_problem.c_str(), more.c_str());
  }
  for (size_t i = 0; i < parsed.values.size(); ++i) {
    map[parsed.values[i].first] = {std::move(parsed.values[i].second), parsed.line_numbers[i]};
  }
  return map;
}

// Writes UserSettingsPath's result into `out` (`size` bytes). False, with "" written, if
// it does not fit.
TRACEWIRE_STARTUP_PATH bool UserSettingsPathInto(const char* xdg_config_home, const char* home,
                                                 char* out, size_t size) {
  const char* base = nullptr;
  const char* suffix = nullptr;
  if (xdg_config_home != nullptr && xdg_config_home[0] == '/') {
    base = xdg_config_home;
    suffix = g_xdg_suffix;
  } else if (home != nullptr && home[0] == '/') {
    base = home;
    suffix = g_home_suffix;
  }
  out[0] = '\0';
  if (base == nullptr) return true;
  const size_t base_size = strlen(base);
  const size_t suffix_size = strlen(suffix);
  if (base_size + suffix_size >= size) return false;
  memcpy(out, base, base_size);
  memcpy(out + base_size, suffix, suffix_size + 1);
  return true;
}

// The two files, read once.
struct FileSettings {
  SettingsMap user;
  SettingsMap system;
  std::string user_path;  // for warnings: set if the user file set something (or is long)
  TRACEWIRE_STARTUP_PATH FileSettings() {
    system = LoadFile(g_system_path);
    // secure_getenv: a set-user-ID program does not read a file its caller chose.
    const char* xdg_config_home = secure_getenv(g_xdg_config_home_variable);
    const char* home = secure_getenv(g_home_variable);
    // The common path fits a small buffer; a PATH_MAX one would take the stack into a page
    // the process has not touched yet (a page fault on every start).
    char user_path[256];
    if (UserSettingsPathInto(xdg_config_home, home, user_path, sizeof(user_path))) {
      user = LoadFile(user_path);
      if (!user.empty()) this->user_path = user_path;
    } else {
      this->user_path = UserSettingsPath(xdg_config_home, home);
      user = LoadFile(this->user_path.c_str());
    }
  }
};

// The files' settings: never destroyed (Setting's pointers live as long as the process) and
// not on the heap. Built under a three-state word rather than as a function-local static,
// whose guard (libstdc++'s __cxa_guard_acquire) is code an untraced start would fault in
// for nothing else.
alignas(FileSettings) TRACEWIRE_STARTUP_DATA unsigned char g_files_storage[sizeof(FileSettings)];
enum FilesState : int { kFilesUnread, kFilesReading, kFilesRead };
TRACEWIRE_STARTUP_DATA std::atomic<int> g_files_state{kFilesUnread};

TRACEWIRE_STARTUP_PATH const FileSettings& Files() {
  // acquire, pairs with the release of kFilesRead below: the settings are read after it.
  if (g_files_state.load(std::memory_order_acquire) != kFilesRead) {
    int unread = kFilesUnread;
    // acquire on success: this thread constructs the settings; relaxed on failure: the
    // loop below acquires.
    if (g_files_state.compare_exchange_strong(unread, kFilesReading, std::memory_order_acquire,
                                              std::memory_order_relaxed)) {
      new (g_files_storage) FileSettings();
      // release, pairs with the acquire loads: the constructed settings before kFilesRead.
      g_files_state.store(kFilesRead, std::memory_order_release);
    } else {
      // acquire, as above: another thread constructed them.
      while (g_files_state.load(std::memory_order_acquire) != kFilesRead) sched_yield();
    }
  }
  return *std::launder(reinterpret_cast<const FileSettings*>(g_files_storage));
}

}  // namespace

bool IsFileSettingName(absl::string_view name) {
  for (absl::string_view known : kFileSettings) {
    if (known == name) return true;
  }
  return false;
}

ParsedSettings ParseSettingsText(absl::string_view text) {
  ParsedSettings parsed;
  int number = 0;
  auto bad = [&parsed, &number](absl::string_view why) {
    if (parsed.bad_lines++ == 0) parsed.first_problem = Cat({"line ", Dec(number), ": ", why});
  };
  for (absl::string_view line : SplitByChar(text, '\n')) {
    ++number;
    if (EndsWith(line, "\r")) line.remove_suffix(1);
    line = StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (Find(line, '\0') != absl::string_view::npos) {
      bad("NUL byte");
      continue;
    }
    const size_t equals = Find(line, '=');
    if (equals == absl::string_view::npos) {
      bad("expected 'key = value'");
      continue;
    }
    const absl::string_view key = StripAsciiWhitespace(Substr(line, 0, equals));
    absl::string_view value = StripAsciiWhitespace(Substr(line, equals + 1));
    if (key.empty()) {
      bad("no key before '='");
      continue;
    }
    if (!IsFileSettingName(key)) {
      // Only the name is printed: it is all letters, digits and '_' or it is not echoed.
      const bool printable = std::all_of(key.begin(), key.end(), [](char c) {
        return IsAsciiAlnum(static_cast<unsigned char>(c)) || c == '_';
      });
      bad(printable && key.size() <= 64 ? Cat({"unknown setting '", key, "'"})
                                        : std::string("unknown setting"));
      continue;
    }
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = Substr(value, 1, value.size() - 2);
    }
    parsed.values.emplace_back(std::string(key), std::string(value));
    parsed.line_numbers.push_back(number);
  }
  return parsed;
}

std::string UserSettingsPath(const char* xdg_config_home, const char* home) {
  char path[PATH_MAX];
  UserSettingsPathInto(xdg_config_home, home, path, sizeof(path));
  return path;
}

TRACEWIRE_STARTUP_PATH SettingValue LookupSetting(const char* name) {
  SettingValue found;
  found.source.name = name;
  const char* env = getenv(name);
  // As git: a non-empty environment variable wins; an empty one does not hide the files
  // (set 0 to turn a setting off).
  if (env != nullptr && *env != '\0') {
    found.value = env;
    found.source.kind = SettingSource::Kind::kEnvironment;
    return found;
  }
  const FileSettings& files = Files();
  const std::pair<const SettingsMap*, const char*> maps[] = {{&files.user, files.user_path.c_str()},
                                                             {&files.system, g_system_path}};
  for (const auto& [map, path] : maps) {
    if (map->empty()) continue;  // no settings file: no hashing (its code is not faulted in)
    auto it = map->find(name);
    if (it != map->end()) {
      found.value = it->second.value.c_str();
      found.source.kind = SettingSource::Kind::kFile;
      found.source.path = path;
      found.source.line = it->second.line;
      return found;
    }
  }
  if (env != nullptr) {
    found.value = env;
    found.source.kind = SettingSource::Kind::kEnvironment;
  }
  return found;
}

TRACEWIRE_STARTUP_PATH const char* Setting(const char* name) { return LookupSetting(name).value; }

tw_settings LoadSettings(bool* tracing_refused) {
  tw_settings settings{};
  settings.target = Setting("TRACEWIRE");
  settings.app_version = Setting("TRACEWIRE_APP_VERSION");
  settings.generation_ms =
      CheckedPositive(LookupSetting("TRACEWIRE_GENERATION_MS"), "the default, 1000");
  settings.generation_bytes =
      CheckedPositive(LookupSetting("TRACEWIRE_GENERATION_BYTES"), "the default, 8 MiB");
  settings.compress = CheckedBool(LookupSetting("TRACEWIRE_COMPRESS"), false);
  settings.no_redact = !CheckedBool(LookupSetting("TRACEWIRE_REDACT"), true);
  const SettingValue stacks = LookupSetting("TRACEWIRE_STACKS");
  CheckStackEvents(stacks);
  settings.stack_events = stacks.value;
  settings.max_files = CheckedFileCount(LookupSetting("TRACEWIRE_MAX_FILES"));
  settings.config_params = Setting("TRACEWIRE_CONFIG_PARAMS");
  settings.env_vars = Setting("TRACEWIRE_ENV_VARS");
  settings.categories = Setting("TRACEWIRE_CATEGORIES");
  settings.no_ancestry = !CheckedBool(LookupSetting("TRACEWIRE_ANCESTRY"), true);
  settings.write_timeout_ms = static_cast<int>(std::min<uint64_t>(
      CheckedPositive(LookupSetting("TRACEWIRE_WRITE_TIMEOUT_MS"), "the default, 1000"),
      24 * 3600 * 1000));
  bool refused = false;
  settings.flight_recorder_bytes =
      CheckedFlightRecorderBytes(LookupSetting("TRACEWIRE_FLIGHT_RECORDER"), &refused);
  settings.flight_signal = CheckedFlightSignal(LookupSetting("TRACEWIRE_FLIGHT_SIGNAL"));
  settings.flight_on_error = CheckedBool(LookupSetting("TRACEWIRE_FLIGHT_ON_ERROR"), false);
  settings.cpu_profile_hz = CheckedCpuProfileHz(LookupSetting("TRACEWIRE_CPU_PROFILE"));
  if (tracing_refused != nullptr) *tracing_refused = refused;
  return settings;
}

void SetSystemSettingsPathForTesting(const char* path) { g_system_path = path; }

}  // namespace tracewire::runtime
