// CurlLibrary: the libcurl functions the OTLP/HTTP exporter calls, resolved with
// dlopen/dlsym from libcurl.so.4 the first time they are needed. The tracewire command
// links nothing of libcurl, so a command that exports nothing does not load libcurl or
// what libcurl needs (TLS, Kerberos, LDAP, compression libraries, ...) at start-up.
//
//   absl::StatusOr<const CurlLibrary*> curl = Curl();
//   if (!curl.ok()) return curl.status();  // names the library and the Debian package
//   CURL* handle = (*curl)->easy_init();
//
// The types and constants come from <curl/curl.h> at compile time.
#ifndef TRACEWIRE_TOOLS_OTLP_CURL_LIBRARY_H_
#define TRACEWIRE_TOOLS_OTLP_CURL_LIBRARY_H_

#include <curl/curl.h>

#include "absl/status/statusor.h"

namespace tracewire::tools {

// The shared library loaded, and the Debian package that installs it.
inline constexpr char kCurlLibraryName[] = "libcurl.so.4";
inline constexpr char kCurlPackage[] = "libcurl4";

// The libcurl functions tracewire uses (each non-null in a loaded table).
struct CurlLibrary {
  decltype(&curl_global_init) global_init = nullptr;
  decltype(&curl_easy_init) easy_init = nullptr;
  decltype(&curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&curl_easy_setopt) easy_setopt = nullptr;
  decltype(&curl_easy_perform) easy_perform = nullptr;
  decltype(&curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&curl_easy_strerror) easy_strerror = nullptr;
  decltype(&curl_slist_append) slist_append = nullptr;
  decltype(&curl_slist_free_all) slist_free_all = nullptr;
};

// Loads the shared library `file_name` (as dlopen(3) finds it) and resolves every
// function of CurlLibrary. FailedPrecondition, naming the library, why it could not be
// loaded and the Debian package to install, if the file cannot be loaded or lacks a
// function. The library stays loaded. Does not call curl_global_init.
absl::StatusOr<CurlLibrary> LoadCurlLibrary(const char* file_name = kCurlLibraryName);

// The process's libcurl: loaded (and curl_global_init run) once, at the first call;
// later calls return the same table or the same error. Thread-safe.
absl::StatusOr<const CurlLibrary*> Curl();

}  // namespace tracewire::tools

#endif  // TRACEWIRE_TOOLS_OTLP_CURL_LIBRARY_H_
