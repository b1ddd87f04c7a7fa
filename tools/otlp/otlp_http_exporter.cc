#include "tools/otlp/otlp_http_exporter.h"

#include <algorithm>

#include "absl/random/random.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "nlohmann/json.hpp"
#include "reader/targets/otlp_target.h"
#include "tools/otlp/curl_library.h"

namespace tracewire::tools {
namespace {

constexpr size_t kMaxResponseBody = 64 * 1024;

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  std::string* body = static_cast<std::string*>(user);
  const size_t n = size * count;
  if (body->size() < kMaxResponseBody)
    body->append(data, std::min(n, kMaxResponseBody - body->size()));
  return n;
}

int AbortIfCancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<std::atomic<bool>*>(user)->load() ? 1 : 0;
}

bool IsRetryableHttp(long status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

// Transfer failures worth another attempt: the receiver may be restarting or overloaded.
bool IsRetryableCurl(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

absl::StatusCode CodeForHttp(long status) {
  switch (status) {
    case 400:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 413:
      return absl::StatusCode::kResourceExhausted;
    default:
      return status >= 500 ? absl::StatusCode::kInternal : absl::StatusCode::kFailedPrecondition;
  }
}

// The message of an OTLP error body (a google.rpc.Status as JSON), else the body's start.
std::string ErrorMessage(const std::string& body) {
  const nlohmann::json status = nlohmann::json::parse(body, nullptr, false);
  if (status.is_object() && status.contains("message") && status["message"].is_string()) {
    return status["message"].get<std::string>();
  }
  std::string text(absl::StripAsciiWhitespace(body.substr(0, 200)));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return text;
}

bool IsHttpToken(absl::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && !absl::StrContains("!#$%&'*+-.^_`|~", c)) return false;
  }
  return true;
}

}  // namespace

struct OtlpHttpExporter::Attempt {
  CURLcode curl_code = CURLE_OK;
  long http_status = 0;
  std::string body;
  int64_t retry_after_s = 0;
  std::string error;  // what went wrong, for messages
  bool ok = false;
  bool retryable = false;
};

absl::StatusOr<std::pair<std::string, std::string>> ParseOtlpHeader(absl::string_view spec) {
  const size_t eq = spec.find('=');
  if (eq == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("header '", spec, "' is not NAME=VALUE"));
  }
  const absl::string_view name = absl::StripAsciiWhitespace(spec.substr(0, eq));
  const absl::string_view value = absl::StripAsciiWhitespace(spec.substr(eq + 1));
  if (!IsHttpToken(name)) {
    return absl::InvalidArgumentError(absl::StrCat("header name '", name, "' is not valid"));
  }
  if (absl::StrContains(value, '\r') || absl::StrContains(value, '\n') ||
      absl::StrContains(value, '\0')) {
    return absl::InvalidArgumentError(
        absl::StrCat("the value of header ", name, " holds a line break or NUL"));
  }
  return std::make_pair(std::string(name), std::string(value));
}

OtlpHttpExporter::OtlpHttpExporter(const OtlpHttpOptions& options, const CurlLibrary& curl_lib)
    : options_(options), curl_lib_(curl_lib) {}

absl::StatusOr<std::unique_ptr<OtlpHttpExporter>> OtlpHttpExporter::Create(
    const OtlpHttpOptions& options) {
  const std::string lower = absl::AsciiStrToLower(options.endpoint);
  if (!absl::StartsWith(lower, "http://") && !absl::StartsWith(lower, "https://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("OTLP endpoint '", options.endpoint, "' is not an http:// or https:// URL"));
  }
  if (options.timeout <= absl::ZeroDuration() || options.retry_time < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("OTLP timeouts must be positive");
  }
  // libcurl is loaded (and curl_global_init run) at the first exporter.
  absl::StatusOr<const CurlLibrary*> lib = Curl();
  if (!lib.ok()) return lib.status();
  const CurlLibrary& curl_lib = **lib;
  std::unique_ptr<OtlpHttpExporter> exporter(new OtlpHttpExporter(options, curl_lib));
  exporter->url_ = absl::StrCat(absl::StripSuffix(options.endpoint, "/"), "/v1/traces");
  exporter->metrics_url_ = absl::StrCat(absl::StripSuffix(options.endpoint, "/"), "/v1/metrics");
  CURL* curl = curl_lib.easy_init();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  exporter->curl_ = curl;
  curl_slist* list = curl_lib.slist_append(nullptr, "Content-Type: application/json");
  list = curl_lib.slist_append(list, "Expect:");  // no 100-continue round trip for large bodies
  for (const auto& [name, value] : options.headers) {
    list = curl_lib.slist_append(list, absl::StrCat(name, ": ", value).c_str());
  }
  exporter->header_list_ = list;
  curl_lib.easy_setopt(curl, CURLOPT_URL, exporter->url_.c_str());
  curl_lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_lib.easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_lib.easy_setopt(curl, CURLOPT_POST, 1L);
  curl_lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_lib.easy_setopt(curl, CURLOPT_USERAGENT,
                       absl::StrCat("tracewire/", targets::kOtlpScopeVersion).c_str());
  curl_lib.easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_lib.easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_lib.easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, AbortIfCancelled);
  curl_lib.easy_setopt(curl, CURLOPT_XFERINFODATA, &exporter->cancelled_);
  return exporter;
}

OtlpHttpExporter::~OtlpHttpExporter() {
  if (curl_ != nullptr) curl_lib_.easy_cleanup(static_cast<CURL*>(curl_));
  if (header_list_ != nullptr) curl_lib_.slist_free_all(static_cast<curl_slist*>(header_list_));
}

void OtlpHttpExporter::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
}

bool OtlpHttpExporter::Sleep(absl::Duration d) {
  absl::MutexLock lock(&mu_);
  return !mu_.AwaitWithTimeout(
      absl::Condition(
          +[](std::atomic<bool>* cancelled) { return cancelled->load(); }, &cancelled_),
      d);
}

OtlpHttpExporter::Attempt OtlpHttpExporter::Post(absl::string_view body, const std::string& url) {
  Attempt a;
  CURL* curl = static_cast<CURL*>(curl_);
  curl_lib_.easy_setopt(curl, CURLOPT_URL, url.c_str());
  char error_buffer[CURL_ERROR_SIZE] = {};
  curl_lib_.easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_lib_.easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_lib_.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_lib_.easy_setopt(curl, CURLOPT_WRITEDATA, &a.body);
  a.curl_code = curl_lib_.easy_perform(curl);
  curl_lib_.easy_setopt(curl, CURLOPT_ERRORBUFFER, nullptr);
  if (a.curl_code != CURLE_OK) {
    a.error = error_buffer[0] != '\0' ? error_buffer : curl_lib_.easy_strerror(a.curl_code);
    a.retryable = IsRetryableCurl(a.curl_code);
    return a;
  }
  curl_lib_.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &a.http_status);
  curl_off_t retry_after = 0;
  if (curl_lib_.easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK) {
    a.retry_after_s = retry_after;
  }
  a.ok = a.http_status >= 200 && a.http_status < 300;
  if (!a.ok) {
    a.retryable = IsRetryableHttp(a.http_status);
    const std::string message = ErrorMessage(a.body);
    a.error = absl::StrCat("HTTP ", a.http_status, message.empty() ? "" : ": ", message);
  }
  return a;
}

ExportResult OtlpHttpExporter::Export(absl::string_view request_json, bool retry, bool metrics) {
  ExportResult result;
  const absl::Time start = absl::Now();
  const absl::Time deadline = start + options_.retry_time;
  absl::Duration backoff = options_.initial_backoff;
  absl::BitGen random;
  CURL* curl = static_cast<CURL*>(curl_);
  while (true) {
    if (cancelled_) {
      result.status = absl::CancelledError("export cancelled");
      return result;
    }
    // An attempt never runs past the request's deadline (but gets at least 100 ms).
    const absl::Duration left = retry ? deadline - absl::Now() : options_.timeout;
    const absl::Duration limit =
        std::max(std::min(options_.timeout, left), absl::Milliseconds(100));
    curl_lib_.easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                          static_cast<long>(absl::ToInt64Milliseconds(limit)));
    curl_lib_.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                          static_cast<long>(absl::ToInt64Milliseconds(limit)));
    const Attempt a = Post(request_json, metrics ? metrics_url_ : url_);
    ++result.attempts;
    if (a.ok) {
      const nlohmann::json response = nlohmann::json::parse(a.body, nullptr, false);
      if (response.is_object() && response.contains("partialSuccess") &&
          response["partialSuccess"].is_object()) {
        const nlohmann::json& partial = response["partialSuccess"];
        const nlohmann::json rejected = partial.value("rejectedSpans", nlohmann::json(0));
        if (rejected.is_number_integer()) {
          result.rejected_spans = rejected.get<int64_t>();
        } else if (rejected.is_string()) {
          absl::SimpleAtoi(rejected.get<std::string>(), &result.rejected_spans);
        }
        result.rejection_message = partial.value("errorMessage", "");
      }
      return result;
    }
    if (cancelled_ || a.curl_code == CURLE_ABORTED_BY_CALLBACK) {
      result.status = absl::CancelledError("export cancelled");
      return result;
    }
    if (!a.retryable) {
      const absl::StatusCode code =
          a.http_status != 0 ? CodeForHttp(a.http_status) : absl::StatusCode::kUnavailable;
      result.status = absl::Status(code, a.error);
      return result;
    }
    if (!retry) {
      result.status = absl::UnavailableError(a.error);
      return result;
    }
    // Wait as the receiver asks, else back off; a backoff is cut short to make a last
    // attempt at the deadline, a Retry-After past it ends the request now.
    const absl::Duration remaining = deadline - absl::Now();
    absl::Duration wait;
    if (a.retry_after_s > 0) {
      wait = absl::Seconds(a.retry_after_s);
    } else {
      wait = std::min(backoff * absl::Uniform(random, 0.5, 1.5), remaining);
      backoff = std::min(backoff * 2, options_.max_backoff);
    }
    if (wait > remaining || remaining < absl::Milliseconds(100)) {
      result.status = absl::UnavailableError(absl::StrCat(
          a.error, " (", result.attempts, result.attempts == 1 ? " attempt" : " attempts", " in ",
          absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Milliseconds(1))),
          a.retry_after_s > 0 ? absl::StrCat("; Retry-After ", a.retry_after_s, " s") : "",
          "; the retry time is ", absl::FormatDuration(options_.retry_time), ")"));
      return result;
    }
    if (!Sleep(wait)) {
      result.status = absl::CancelledError("export cancelled");
      return result;
    }
  }
}

}  // namespace tracewire::tools
