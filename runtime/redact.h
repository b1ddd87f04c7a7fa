// Credential redaction in the argv of start, child_start, exec and alias events and in
// def_param values (TRACEWIRE_REDACT, on by default). A superset of git's GIT_TRACE2_REDACT,
// which only replaces the password of an http(s) URL that starts the argument:
//
//   * URLs of any scheme, in any case, anywhere in the argument
//     ("--url=HTTPS://user:pw@host", "remote.origin.url=ftp://u:p@h/x"):
//       - "user:password@" keeps the user: "user:<REDACTED>@"; a ':' spelled "%3A" counts;
//       - userinfo without a password is a token ("https://TOKEN@host") and is replaced
//         whole: "<REDACTED>@", except for ssh-like schemes (ssh, git+ssh, ssh+git, sftp),
//         whose user is an account name (ssh://git@host keeps "git@");
//       - the userinfo ends at the last '@' of the authority, so an unescaped '@' in a
//         password does not leave its tail visible;
//       - query parameters named like secrets ("token", "access_token", "password",
//         "key", "api_key", "secret", "sig", "X-Amz-Signature", ...: see
//         IsSecretName) have their values replaced: "?token=<REDACTED>&page=2";
//   * scp-style locations "user:password@host:path": the password is replaced (a user
//     alone, as in git@github.com:o/r.git, is kept);
//   * header values: "Authorization: Basic <REDACTED>" (the scheme word is kept), and the
//     whole value of other secret headers ("Private-Token: <REDACTED>", "X-Api-Key",
//     "Cookie"), to the end of the argument;
//   * "name=value" arguments and options whose name is secret-like
//     ("--password=<REDACTED>", "api_key=<REDACTED>");
//   * a def_param whose parameter name is secret-like ("user.token") has its whole value
//     replaced.
//
// Not redacted: a secret passed as a separate argument ("--password", "hunter2"), secrets
// in free text without these shapes, and every other event (messages, data values, errors,
// cmd_ancestry); see docs/api.md.
//
// Cost: only argv and def_param values go through it, never the per-event hot path. An
// argument without '@', '?', ':' or '=' is copied as is; otherwise one linear scan, and no
// allocation beyond the output's growth for up to eight redacted spans.
#ifndef TRACEWIRE_RUNTIME_REDACT_H_
#define TRACEWIRE_RUNTIME_REDACT_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tracewire::runtime {

// The text that replaces a secret.
inline constexpr absl::string_view kRedacted = "<REDACTED>";

// Appends `arg` to *out with every credential the rules above find replaced by kRedacted.
void AppendRedacted(absl::string_view arg, std::string* out);

// Appends the value of def_param `param` to *out, redacted: whole if `param` is
// secret-like, else as AppendRedacted.
void AppendRedactedParam(absl::string_view param, absl::string_view value, std::string* out);

// `arg` redacted (AppendRedacted into a new string).
std::string Redact(absl::string_view arg);

// True if a query parameter, header, option or parameter named `name` holds a secret: its
// last word (words split at '_', '-', '.', and lower-to-upper case changes; case ignored)
// is token, secret, password, passwd, pwd, pass, key, apikey, signature, sig, credential,
// credentials, auth, authorization, cookie, session or sessionid, or ends in token, secret,
// password, apikey or authorization ("accesstoken").
bool IsSecretName(absl::string_view name);

}  // namespace tracewire::runtime

#endif  // TRACEWIRE_RUNTIME_REDACT_H_
