// Session ids built exactly as git's tr2_sid.c builds them.
#ifndef TRACEWIRE_RUNTIME_SID_H_
#define TRACEWIRE_RUNTIME_SID_H_

#include <time.h>

#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::runtime {

// This process's own sid component:
// "<UTC yyyymmddThhmmss.uuuuuuZ>-H<first 8 hex of SHA-1(hostname)>-P<%08x pid>";
// the host part is "Localhost" when `hostname` is empty. `now` is CLOCK_REALTIME; its
// sub-microsecond part is dropped.
std::string OwnSidComponent(const timespec& now, absl::string_view hostname, unsigned pid);

// The full sid: "<parent_sid>/<own>" if parent_sid is non-empty, else own.
std::string FullSid(absl::string_view parent_sid, absl::string_view own);

// Process depth: number of '/' in the parent sid plus one, or 0 without a parent.
int SidDepth(absl::string_view full_sid);

// Lowercase hex SHA-1 of `data` (40 characters).
std::string Sha1Hex(absl::string_view data);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_SID_H_
