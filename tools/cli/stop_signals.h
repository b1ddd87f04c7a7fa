// SIGINT and SIGTERM as the long-running commands (decode --follow, listen) take them: a
// handler that asks the command to stop, installed for the run and then undone.
#ifndef TRACEWIRE_TOOLS_CLI_STOP_SIGNALS_H_
#define TRACEWIRE_TOOLS_CLI_STOP_SIGNALS_H_

#include <signal.h>

namespace tracewire::tools {

// The SIGINT and SIGTERM actions that InstallStopHandler replaced.
struct SavedStopActions {
  struct sigaction int_action;
  struct sigaction term_action;
};

// Sets `handler` (async-signal-safe) as the action of SIGINT and SIGTERM; returns the
// previous actions.
SavedStopActions InstallStopHandler(void (*handler)(int));

// Puts back the actions that InstallStopHandler returned.
void RestoreStopActions(const SavedStopActions& saved);

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_CLI_STOP_SIGNALS_H_
