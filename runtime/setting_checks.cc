#include "runtime/setting_checks.h"

#include <signal.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "format/byte_size.h"
#include "runtime/cpu_sampler.h"
#include "runtime/flight_recorder.h"
#include "runtime/stack_events.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

// Longest value a warning echoes.
constexpr size_t kMaxEchoedValue = 256;

// The largest flight-recorder ring.
constexpr uint64_t kMaxFlightRecorderBytes = uint64_t{1} << 40;

bool IsEchoable(absl::string_view value) {
  if (value.size() > kMaxEchoedValue) return false;
  for (char c : value) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// A program's setting named by its tw_settings field.
SettingSource ProgramSource(const char* field) {
  SettingSource source;
  source.kind = SettingSource::Kind::kProgram;
  source.name = field;
  return source;
}

// True for the values that stand for "not set": none, or empty (an empty environment
// variable, or `KEY =` in a file).
bool IsUnset(const SettingValue& setting) {
  return setting.value == nullptr || setting.value[0] == '\0';
}

// 1 for a true word, 0 for a false one, -1 for anything else.
int ParseBoolWord(absl::string_view value) {
  const std::string word = AsciiStrToLower(StripAsciiWhitespace(value));
  for (const char* yes : {"1", "true", "yes", "on"}) {
    if (word == yes) return 1;
  }
  for (const char* no : {"0", "false", "no", "off"}) {
    if (word == no) return 0;
  }
  return -1;
}

}  // namespace

std::string BadSettingWarning(const SettingSource& source, absl::string_view value,
                              absl::string_view fallback) {
  std::string warning = "warning: tracewire: ";
  if (source.kind == SettingSource::Kind::kFile) {
    warning += Cat({"settings file '", source.path == nullptr ? "" : source.path, "': line ",
                    Dec(source.line), ": "});
  }
  const absl::string_view prefix =
      source.kind == SettingSource::Kind::kProgram ? "tw_settings." : "";
  warning += Cat({"unknown value for '", prefix, source.name, "'"});
  if (IsEchoable(value)) {
    warning += Cat({": '", value, "'"});
  } else {
    warning += Cat({" (", Dec(static_cast<long long>(value.size())), " bytes, not shown)"});
  }
  if (!fallback.empty()) warning += Cat({"; ", fallback});
  warning += "\n";
  return warning;
}

void WarnBadSetting(const SettingSource& source, absl::string_view value,
                    absl::string_view fallback) {
  const std::string warning = BadSettingWarning(source, value, fallback);
  fputs(warning.c_str(), stderr);
}

uint64_t CheckedPositive(const SettingValue& setting, absl::string_view default_text) {
  if (IsUnset(setting)) return 0;
  uint64_t parsed = 0;
  if (ParseDecimal(setting.value, &parsed) && parsed > 0) return parsed;
  WarnBadSetting(setting.source, setting.value,
                 Cat({"using ", default_text, " (a positive whole number is expected)"}));
  return 0;
}

bool CheckedBool(const SettingValue& setting, bool fallback) {
  if (IsUnset(setting)) return fallback;
  const int parsed = ParseBoolWord(setting.value);
  if (parsed >= 0) return parsed == 1;
  WarnBadSetting(setting.source, setting.value,
                 Cat({"using the default, ", fallback ? "1" : "0",
                      " (1, true, yes, on or 0, false, no, off is expected)"}));
  return fallback;
}

int CheckedFileCount(const SettingValue& setting) {
  if (IsUnset(setting)) return 0;
  uint64_t parsed = 0;
  if (ParseDecimal(setting.value, &parsed) && parsed <= INT_MAX) return static_cast<int>(parsed);
  WarnBadSetting(setting.source, setting.value,
                 "using the default, 0 (no cap; a whole number of files is expected)");
  return 0;
}

bool CheckedDestinationDebug(const SettingValue& setting) {
  if (IsUnset(setting)) return false;
  long long level = 0;
  if (ParseDecimal(setting.value, &level)) return level > 0;
  const int word = ParseBoolWord(setting.value);
  if (word >= 0) return word == 1;
  WarnBadSetting(setting.source, setting.value, "using the default, 0 (a number is expected)");
  return false;
}

void CheckStackEvents(const SettingValue& setting) {
  if (IsUnset(setting)) return;
  uint64_t mask[4] = {};
  std::vector<std::string> unknown;
  AddStackEvents(setting.value, mask, &unknown);
  if (unknown.empty()) return;
  std::string names;
  for (const std::string& name : unknown) names += names.empty() ? name : "," + name;
  WarnBadSetting(setting.source, names,
                 Cat({"ignored (the events that record a stack: ", StackEventNames(), ")"}));
}

uint64_t CheckedFlightRecorderBytes(const SettingValue& setting, bool* refused) {
  *refused = false;
  if (IsUnset(setting)) return 0;
  const std::optional<uint64_t> bytes =
      format::ParseByteSize(setting.value, kMaxFlightRecorderBytes);
  if (bytes.has_value()) return *bytes;
  WarnBadSetting(setting.source, setting.value,
                 "tracing is off (a size such as 16M, at most 1024G, is expected)");
  *refused = true;
  return 0;
}

int CheckedFlightSignal(const SettingValue& setting) {
  if (IsUnset(setting)) return 0;
  const int signo = ParseFlightSignal(setting.value);
  if (signo != 0) return signo;
  WarnBadSetting(setting.source, setting.value, "no signal dumps (USR1 or USR2 is expected)");
  return 0;
}

unsigned CheckedCpuProfileHz(const SettingValue& setting) {
  if (IsUnset(setting)) return 0;
  uint64_t parsed = 0;
  if (ParseDecimal(setting.value, &parsed) && parsed <= kMaxCpuProfileHz) {
    return static_cast<unsigned>(parsed);
  }
  WarnBadSetting(setting.source, setting.value,
                 Cat({"no CPU profile (a rate from 1 to ", Dec(uint64_t{kMaxCpuProfileHz}),
                      " samples per second, or 0, is expected)"}));
  return 0;
}

void CheckClockSetting() {
  SettingValue clock;
  clock.source.kind = SettingSource::Kind::kEnvironment;
  clock.source.name = "TRACEWIRE_CLOCK";
  clock.value = getenv(clock.source.name);
  if (IsUnset(clock)) return;
  const absl::string_view value = clock.value;
  if (value == "monotonic" || value == "tsc") return;
  WarnBadSetting(clock.source, value, "using the default, tsc (monotonic or tsc is expected)");
}

void CheckProgramSettings(const tw_settings& settings) {
  if (settings.stack_events != nullptr) {
    SettingValue stacks;
    stacks.value = settings.stack_events;
    stacks.source = ProgramSource("stack_events");
    CheckStackEvents(stacks);
  }
  if (settings.max_files < 0) {
    WarnBadSetting(ProgramSource("max_files"), Dec(settings.max_files),
                   "using the default, 0 (no cap)");
  }
  if (settings.write_timeout_ms < 0) {
    WarnBadSetting(ProgramSource("write_timeout_ms"), Dec(settings.write_timeout_ms),
                   "using the default, 1000");
  }
  if (settings.flight_signal != 0 && settings.flight_signal != SIGUSR1 &&
      settings.flight_signal != SIGUSR2) {
    WarnBadSetting(ProgramSource("flight_signal"), Dec(settings.flight_signal),
                   "no signal dumps (SIGUSR1 or SIGUSR2 is expected)");
  }
  if (settings.cpu_profile_hz > kMaxCpuProfileHz) {
    WarnBadSetting(ProgramSource("cpu_profile_hz"), Dec(uint64_t{settings.cpu_profile_hz}),
                   Cat({"no CPU profile (a rate from 1 to ", Dec(uint64_t{kMaxCpuProfileHz}),
                        " samples per second, or 0, is expected)"}));
  }
}

}  // namespace tracewire::runtime
