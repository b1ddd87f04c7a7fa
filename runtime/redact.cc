#include "runtime/redact.h"

#include <algorithm>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "runtime/text.h"

namespace tracewire::runtime {
namespace {

// Byte ranges [first, second) of the argument to replace.
using Spans = absl::InlinedVector<std::pair<size_t, size_t>, 8>;

bool IsSchemeChar(char c) { return IsAsciiAlnum(c) || c == '+' || c == '-' || c == '.'; }
bool IsHostChar(char c) { return IsAsciiAlnum(c) || c == '-' || c == '.' || c == '_'; }
bool IsHeaderNameChar(char c) { return IsAsciiAlnum(c) || c == '-' || c == '_'; }
bool IsOptionNameChar(char c) { return IsAsciiAlnum(c) || c == '-' || c == '_' || c == '.'; }
// Characters that end a URL or start a token inside free text.
bool IsBoundary(char c) {
  return IsAsciiSpace(c) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`';
}
// Characters before which a scp-style location or a header name may start.
bool IsTokenStart(char c) { return IsBoundary(c) || c == '=' || c == ',' || c == '(' || c == ';'; }

// The position just past the password separator of `userinfo` (':' or "%3A"), or npos.
size_t PasswordStart(absl::string_view userinfo) {
  for (size_t i = 0; i < userinfo.size(); ++i) {
    if (userinfo[i] == ':') return i + 1;
    if (userinfo[i] == '%' && i + 2 < userinfo.size() && userinfo[i + 1] == '3' &&
        (userinfo[i + 2] == 'A' || userinfo[i + 2] == 'a')) {
      return i + 3;
    }
  }
  return absl::string_view::npos;
}

bool IsSshLike(absl::string_view scheme) {
  return EqualsIgnoreCase(scheme, "ssh") || EqualsIgnoreCase(scheme, "git+ssh") ||
         EqualsIgnoreCase(scheme, "ssh+git") || EqualsIgnoreCase(scheme, "sftp");
}

// Query parameters with secret-like names in [begin, end) (after the '?').
void QuerySpans(absl::string_view arg, size_t begin, size_t end, Spans* spans) {
  size_t pos = begin;
  while (pos < end) {
    size_t stop = pos;
    while (stop < end && arg[stop] != '&' && arg[stop] != ';') ++stop;
    const absl::string_view param = Substr(arg, pos, stop - pos);
    const size_t eq = Find(param, '=');
    if (eq != absl::string_view::npos && eq + 1 < param.size() &&
        IsSecretName(Substr(param, 0, eq))) {
      spans->emplace_back(pos + eq + 1, stop);
    }
    pos = stop + 1;
  }
}

// Start of the scheme that ends at `sep` (the position of "://"); `sep` if there is none.
size_t SchemeStart(absl::string_view arg, size_t sep) {
  size_t scheme = sep;
  while (scheme > 0 && IsSchemeChar(arg[scheme - 1])) --scheme;
  while (scheme < sep && !IsAsciiAlpha(arg[scheme])) ++scheme;
  return scheme;
}

// URLs with a scheme: userinfo and secret query values. Marks each URL's range in *urls.
// A URL ends at a boundary or where the next URL's scheme starts, so every byte is looked
// at a bounded number of times.
void UrlSpans(absl::string_view arg, Spans* spans, Spans* urls) {
  size_t sep = Find(arg, "://");
  while (sep != absl::string_view::npos) {
    const size_t next = Find(arg, "://", sep + 3);
    const size_t limit = next == absl::string_view::npos ? arg.size() : SchemeStart(arg, next);
    const size_t scheme = SchemeStart(arg, sep);
    if (scheme == sep || limit < sep + 3) {
      sep = next;
      continue;
    }
    const size_t authority = sep + 3;
    size_t authority_end = authority;
    while (authority_end < limit && !IsBoundary(arg[authority_end]) && arg[authority_end] != '/' &&
           arg[authority_end] != '?' && arg[authority_end] != '#') {
      ++authority_end;
    }
    size_t url_end = authority_end;
    while (url_end < limit && !IsBoundary(arg[url_end])) ++url_end;
    urls->emplace_back(scheme, url_end);
    // Userinfo: up to the last '@' of the authority.
    const absl::string_view host_part = Substr(arg, authority, authority_end - authority);
    const size_t at = RFind(host_part, '@');
    if (at != absl::string_view::npos && at > 0) {
      const absl::string_view userinfo = Substr(host_part, 0, at);
      const size_t password = PasswordStart(userinfo);
      if (password != absl::string_view::npos) {
        spans->emplace_back(authority + password, authority + at);
      } else if (!IsSshLike(Substr(arg, scheme, sep - scheme))) {
        spans->emplace_back(authority, authority + at);
      }
    }
    // Query: from the first '?' after the authority to '#' or the URL's end.
    const absl::string_view url = Substr(arg, 0, url_end);
    const size_t query = Find(url, '?', authority_end);
    if (query != absl::string_view::npos) {
      size_t query_end = Find(url, '#', query);
      if (query_end == absl::string_view::npos) query_end = url_end;
      QuerySpans(arg, query + 1, query_end, spans);
    }
    sep = next;
  }
}

bool Inside(const Spans& ranges, size_t pos) {
  for (const auto& [begin, end] : ranges) {
    if (pos >= begin && pos < end) return true;
  }
  return false;
}

// scp-style "user:password@host:path" outside URLs: the password.
void ScpSpans(absl::string_view arg, const Spans& urls, Spans* spans) {
  for (size_t at = Find(arg, '@'); at != absl::string_view::npos; at = Find(arg, '@', at + 1)) {
    if (at == 0 || Inside(urls, at)) continue;
    size_t host_end = at + 1;
    while (host_end < arg.size() && IsHostChar(arg[host_end])) ++host_end;
    if (host_end == at + 1 || host_end >= arg.size() || arg[host_end] != ':') continue;
    size_t user = at;
    while (user > 0 && !IsTokenStart(arg[user - 1]) && arg[user - 1] != '@') --user;
    const absl::string_view userinfo = Substr(arg, user, at - user);
    const size_t password = PasswordStart(userinfo);
    if (password != absl::string_view::npos && user + password < at) {
      spans->emplace_back(user + password, at);
    }
  }
}

// "Name: value" headers with a secret-like name, to the end of the argument.
void HeaderSpans(absl::string_view arg, Spans* spans) {
  for (size_t colon = Find(arg, ':'); colon != absl::string_view::npos;
       colon = Find(arg, ':', colon + 1)) {
    size_t name = colon;
    while (name > 0 && IsHeaderNameChar(arg[name - 1])) --name;
    if (name == colon || (name > 0 && !IsTokenStart(arg[name - 1]))) continue;
    if (colon + 1 < arg.size() && arg[colon + 1] == '/') continue;  // a URL scheme
    const absl::string_view header = Substr(arg, name, colon - name);
    if (!IsSecretName(header)) continue;
    size_t value = colon + 1;
    while (value < arg.size() && (arg[value] == ' ' || arg[value] == '\t')) ++value;
    if (value == arg.size()) continue;
    // Authorization values start with the scheme ("Basic", "Bearer", "token"): keep it.
    if (EndsWithIgnoreCase(header, "authorization")) {
      const size_t space = FindFirstOf(arg, " \t", value);
      if (space != absl::string_view::npos) {
        size_t credentials = space;
        while (credentials < arg.size() && (arg[credentials] == ' ' || arg[credentials] == '\t')) {
          ++credentials;
        }
        if (credentials < arg.size()) value = credentials;
      }
    }
    spans->emplace_back(value, arg.size());
    return;
  }
}

// "[--]name=value" with a secret-like name: the value.
void OptionSpans(absl::string_view arg, Spans* spans) {
  size_t name = 0;
  while (name < arg.size() && arg[name] == '-') ++name;
  size_t eq = name;
  while (eq < arg.size() && IsOptionNameChar(arg[eq])) ++eq;
  if (eq == name || eq + 1 >= arg.size() || arg[eq] != '=') return;
  if (IsSecretName(Substr(arg, name, eq - name))) spans->emplace_back(eq + 1, arg.size());
}

// Appends `arg` with `spans` (unordered, possibly overlapping) replaced.
void AppendWithSpans(absl::string_view arg, Spans& spans, std::string* out) {
  std::sort(spans.begin(), spans.end());
  size_t pos = 0;
  for (size_t i = 0; i < spans.size();) {
    size_t begin = spans[i].first;
    size_t end = spans[i].second;
    for (++i; i < spans.size() && spans[i].first <= end; ++i) end = std::max(end, spans[i].second);
    if (begin < pos) begin = pos;
    if (begin > end) continue;  // (an empty span is an empty password: still marked)
    out->append(arg.data() + pos, begin - pos);
    out->append(kRedacted.data(), kRedacted.size());
    pos = end;
  }
  out->append(arg.data() + pos, arg.size() - pos);
}

constexpr absl::string_view kSecretWords[] = {
    "token", "secret",        "password",  "passwd",  "pwd",        "pass",
    "key",   "apikey",        "signature", "sig",     "credential", "credentials",
    "auth",  "authorization", "cookie",    "session", "sessionid",
};

}  // namespace

bool IsSecretName(absl::string_view name) {
  // The last word: after the last '_', '-' or '.', or the last lower-to-upper case change.
  size_t start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '_' || c == '-' || c == '.') {
      start = i + 1;
    } else if (i > 0 && IsAsciiUpper(c) && IsAsciiLower(name[i - 1])) {
      start = i;
    }
  }
  const absl::string_view word = Substr(name, start);
  for (absl::string_view secret : kSecretWords) {
    if (EqualsIgnoreCase(word, secret)) return true;
  }
  // One-word compounds: "accesstoken", "apikey", "clientsecret", "privatetoken", and
  // curl's "-HAuthorization".
  for (absl::string_view suffix : {"token", "secret", "password", "apikey", "authorization"}) {
    if (word.size() > suffix.size() && EndsWithIgnoreCase(word, suffix)) return true;
  }
  return false;
}

void AppendRedacted(absl::string_view arg, std::string* out) {
  if (FindFirstOf(arg, "@?:=") == absl::string_view::npos) {
    out->append(arg.data(), arg.size());
    return;
  }
  Spans spans;
  Spans urls;
  UrlSpans(arg, &spans, &urls);
  ScpSpans(arg, urls, &spans);
  HeaderSpans(arg, &spans);
  OptionSpans(arg, &spans);
  AppendWithSpans(arg, spans, out);
}

void AppendRedactedParam(absl::string_view param, absl::string_view value, std::string* out) {
  if (IsSecretName(param) && !value.empty()) {
    out->append(kRedacted.data(), kRedacted.size());
    return;
  }
  AppendRedacted(value, out);
}

std::string Redact(absl::string_view arg) {
  std::string out;
  AppendRedacted(arg, &out);
  return out;
}

}  // namespace tracewire::runtime
