// Texts several tables of `tracewire query` derive from events: a command line from an
// argv, a process's host from its sid.
#ifndef TRACEWIRE_TOOLS_QUERY_ROW_TEXT_H_
#define TRACEWIRE_TOOLS_QUERY_ROW_TEXT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "reader/event.h"

namespace tracewire::tools::query {

// The argv of a start, child_start or exec event joined with spaces (a child git
// command's with the "git" Trace2 puts first).
std::string CommandLineOf(const reader::Event& event);

// The host part of a sid's own component ("H<hash>" of "<time>-H<hash>-P<pid>", without
// the 'H'); empty if the component has none.
absl::string_view HostOfSid(absl::string_view sid);

}  // namespace tracewire::tools::query

#endif  // TRACEWIRE_TOOLS_QUERY_ROW_TEXT_H_
