// Sid parts: the pieces of a Trace2 session id that the exporters and the collector need.
// A sid is the parent's sid, '/', and the process's own component
// ("<UTC time>-H<host hash>-P<pid hex>"), so "a/b/c" is a grandchild of the process "a".
#ifndef TRACEWIRE_READER_SID_PARTS_H_
#define TRACEWIRE_READER_SID_PARTS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::reader {

// The first component of `sid`: the root process of its process tree.
absl::string_view SidFirstComponent(absl::string_view sid);

// The last component of `sid`: the process's own component.
absl::string_view SidLastComponent(absl::string_view sid);

// The second-to-last component (the parent process), nullopt for a sid without '/'.
std::optional<absl::string_view> SidParentComponent(absl::string_view sid);

// The pid of a sid component ending in "-P<hex>" (git writes the low 32 bits of the pid
// as %08x), nullopt if the component does not end that way.
std::optional<uint32_t> PidFromSidComponent(absl::string_view component);

// `component` made safe as a file name: bytes other than [A-Za-z0-9._-] become '_', and a
// name that is empty or starts with '.' gets a leading '_'.
std::string SidFileName(absl::string_view component);

}  // namespace tracewire::reader

#endif  // TRACEWIRE_READER_SID_PARTS_H_
