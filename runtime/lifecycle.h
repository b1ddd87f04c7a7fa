// Process lifecycle of the runtime: initialization from settings, exit, fork, fatal
// signals, thread detach, and the timer/counter registry.
#ifndef TRACEWIRE_RUNTIME_LIFECYCLE_H_
#define TRACEWIRE_RUNTIME_LIFECYCLE_H_

#include "runtime/settings_file.h"
#include "tracewire/tracewire.h"

namespace tracewire::runtime {

// Enables tracing with `settings` (target required). `file`/`line` are the version
// event's site; `target_source` is where settings.target came from, for warnings (a
// program's settings, kProgram, are checked here; the others were checked as read).
// Returns 0 on success, -1 if the target is invalid or cannot be opened.
int Initialize(const tw_settings& settings, const char* file, int line,
               const SettingSource& target_source);

// True once Initialize has run (whatever its result).
bool Initialized();

// Records the process start time (t_abs origin) if not yet recorded.
void MarkStartTime();

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_LIFECYCLE_H_
