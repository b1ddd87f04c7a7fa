// The events TRACEWIRE_STACKS (tw_settings.stack_events) names: the Trace2 event names
// users see in every decoded format, each standing for the rows it is written as ("data"
// for tw_data_string and tw_data_intmax, whose integer form is its own row). Only these
// events can record a stack.
#ifndef TRACEWIRE_RUNTIME_STACK_EVENTS_H_
#define TRACEWIRE_RUNTIME_STACK_EVENTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace tracewire::runtime {

// Sets in `mask` (one bit per event type, g_stack_event_mask's layout) the rows of every
// known name of the comma-separated `list` (names trimmed of spaces, empty ones skipped),
// and appends each unknown name to *unknown when it is not null.
void AddStackEvents(absl::string_view list, uint64_t mask[4], std::vector<std::string>* unknown);

// The names AddStackEvents knows, comma-separated ("error, child_start, ...").
std::string StackEventNames();

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_STACK_EVENTS_H_
