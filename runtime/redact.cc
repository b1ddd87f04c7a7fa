#include "runtime/redact.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tracewire::runtime {

std::string RedactUrl(absl::string_view arg) {
  size_t scheme_end = 0;
  if (absl::StartsWith(arg, "https://")) {
    scheme_end = 8;
  } else if (absl::StartsWith(arg, "http://")) {
    scheme_end = 7;
  } else {
    return std::string(arg);
  }
  const absl::string_view rest = arg.substr(scheme_end);
  // As git's redact_arg: the user info ends at the first '@' (strcspn(p, "@/")).
  const size_t at = rest.find_first_of("@/");
  if (at == absl::string_view::npos || rest[at] != '@') return std::string(arg);
  const size_t colon = rest.substr(0, at).find(':');
  if (colon == absl::string_view::npos) return std::string(arg);
  return absl::StrCat(arg.substr(0, scheme_end + colon + 1), "<REDACTED>",
                      arg.substr(scheme_end + at));
}

}  // namespace tracewire::runtime
