#include "tools/otlp/curl_library.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "reader/shared_library.h"

namespace tracewire::tools {

absl::StatusOr<CurlLibrary> LoadCurlLibrary(const char* file_name) {
  CurlLibrary lib;
  const reader::LibraryNeed need{"OTLP/HTTP export", "libcurl", kCurlPackage};
  const absl::Status opened =
      reader::OpenSharedLibrary(file_name, need, [&lib](reader::FunctionResolver& resolve) {
        resolve("curl_global_init", &lib.global_init);
        resolve("curl_easy_init", &lib.easy_init);
        resolve("curl_easy_cleanup", &lib.easy_cleanup);
        resolve("curl_easy_setopt", &lib.easy_setopt);
        resolve("curl_easy_perform", &lib.easy_perform);
        resolve("curl_easy_getinfo", &lib.easy_getinfo);
        resolve("curl_easy_strerror", &lib.easy_strerror);
        resolve("curl_slist_append", &lib.slist_append);
        resolve("curl_slist_free_all", &lib.slist_free_all);
      });
  if (!opened.ok()) return opened;
  return lib;
}

absl::StatusOr<const CurlLibrary*> Curl() {
  // A function-local static: loaded once, thread-safe (curl_global_init is not).
  static const absl::StatusOr<CurlLibrary>* const loaded = [] {
    auto* lib = new absl::StatusOr<CurlLibrary>(LoadCurlLibrary());
    if (lib->ok()) {
      const CURLcode code = (*lib)->global_init(CURL_GLOBAL_DEFAULT);
      if (code != CURLE_OK) {
        *lib = absl::InternalError(
            absl::StrCat("curl_global_init failed: ", (*lib)->easy_strerror(code)));
      }
    }
    return lib;
  }();
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

}  // namespace tracewire::tools
