// Checks of the runtime's settings (docs/api.md), the same whatever the source: the
// environment, the user or system settings file, or the tw_settings a program passes to
// tw_initialize_with. A value that is not valid writes one warning on stderr naming the
// setting and its source (the variable; the file and line; the tw_settings field), and the
// setting takes its documented fallback. Run at initialization only, never on the event path.
#ifndef TRACEWIRE_RUNTIME_SETTING_CHECKS_H_
#define TRACEWIRE_RUNTIME_SETTING_CHECKS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "runtime/settings_file.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {

// The warning about `value` of the setting from `source`:
//   warning: tracewire: [settings file 'PATH': line N: ]unknown value for 'NAME': 'VALUE'[;
//   using FALLBACK]
// NAME is the variable, or "tw_settings.FIELD" for a program's settings. A value that is
// not printable ASCII or longer than 256 bytes is not echoed. No "; ..." part when
// `fallback` is empty.
std::string BadSettingWarning(const SettingSource& source, absl::string_view value,
                              absl::string_view fallback);

// Writes BadSettingWarning(...) to stderr.
void WarnBadSetting(const SettingSource& source, absl::string_view value,
                    absl::string_view fallback);

// A positive decimal number (TRACEWIRE_GENERATION_MS, ..._BYTES, ..._WRITE_TIMEOUT_MS), or
// 0 (the caller's default, named by `default_text`) when unset, empty or not valid.
uint64_t CheckedPositive(const SettingValue& setting, absl::string_view default_text);

// 1/true/yes/on or 0/false/no/off, any case; `fallback` when unset, empty or not valid.
bool CheckedBool(const SettingValue& setting, bool fallback);

// TRACEWIRE_MAX_FILES: a decimal count up to INT_MAX; 0 (no cap) when unset or not valid.
int CheckedFileCount(const SettingValue& setting);

// TRACEWIRE_DST_DEBUG: true for a number above 0 (or true/yes/on); false otherwise.
bool CheckedDestinationDebug(const SettingValue& setting);

// TRACEWIRE_STACKS: warns about the names that are not events that record a stack.
void CheckStackEvents(const SettingValue& setting);

// TRACEWIRE_FLIGHT_RECORDER: a size with an optional K, M or G suffix (powers of 1024, at
// most 1 TiB), 0 = off. A value that is not valid sets *refused: tracing is off, so that a
// flight recorder asked for but misspelt does not stream every event to the target.
uint64_t CheckedFlightRecorderBytes(const SettingValue& setting, bool* refused);

// TRACEWIRE_FLIGHT_SIGNAL: SIGUSR1 or SIGUSR2 (ParseFlightSignal), 0 when unset or not
// valid.
int CheckedFlightSignal(const SettingValue& setting);

// TRACEWIRE_CPU_PROFILE: a sampling rate from 1 to kMaxCpuProfileHz (10000) samples per
// CPU-second, 0 = off; 0 (off) when unset or not valid.
unsigned CheckedCpuProfileHz(const SettingValue& setting);

// TRACEWIRE_CLOCK (environment only): "monotonic" or "tsc".
void CheckClockSetting();

// The fields of a program's tw_settings that can be out of range: stack_events,
// max_files, write_timeout_ms, flight_signal, cpu_profile_hz (the runtime then uses their
// defaults).
void CheckProgramSettings(const tw_settings& settings);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SETTING_CHECKS_H_
