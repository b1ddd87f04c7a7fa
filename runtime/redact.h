// Credential redaction in URLs, as git 2.44+ does for Trace2 (GIT_TRACE2_REDACT).
#ifndef TRACEWIRE_RUNTIME_REDACT_H_
#define TRACEWIRE_RUNTIME_REDACT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::runtime {

// If `arg` starts with "http://" or "https://" and has "user:password@" before the first
// '/' after the scheme, returns it with the password replaced by "<REDACTED>"; otherwise
// returns it unchanged.
std::string RedactUrl(absl::string_view arg);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_REDACT_H_
