#include "tools/cli/stop_signals.h"

namespace tracewire::tools {

SavedStopActions InstallStopHandler(void (*handler)(int)) {
  struct sigaction action = {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  SavedStopActions saved;
  sigaction(SIGINT, &action, &saved.int_action);
  sigaction(SIGTERM, &action, &saved.term_action);
  return saved;
}

void RestoreStopActions(const SavedStopActions& saved) {
  sigaction(SIGINT, &saved.int_action, nullptr);
  sigaction(SIGTERM, &saved.term_action, nullptr);
}

}  // namespace tracewire::tools
