// tools::LoadCurlLibrary and tools::Curl: libcurl resolved at run time, and the error that
// names the library and the Debian package when it cannot be loaded.
#include "tools/otlp/curl_library.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tracewire::tools {
namespace {

using ::testing::HasSubstr;

TEST(CurlLibraryTest, LoadsEveryFunction) {
  const absl::StatusOr<CurlLibrary> lib = LoadCurlLibrary();
  ASSERT_TRUE(lib.ok()) << lib.status();
  EXPECT_NE(lib->global_init, nullptr);
  EXPECT_NE(lib->easy_init, nullptr);
  EXPECT_NE(lib->easy_cleanup, nullptr);
  EXPECT_NE(lib->easy_setopt, nullptr);
  EXPECT_NE(lib->easy_perform, nullptr);
  EXPECT_NE(lib->easy_getinfo, nullptr);
  EXPECT_NE(lib->easy_strerror, nullptr);
  EXPECT_NE(lib->slist_append, nullptr);
  EXPECT_NE(lib->slist_free_all, nullptr);
}

TEST(CurlLibraryTest, ProcessTableIsLoadedOnceAndWorks) {
  const absl::StatusOr<const CurlLibrary*> first = Curl();
  ASSERT_TRUE(first.ok()) << first.status();
  const absl::StatusOr<const CurlLibrary*> second = Curl();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*first, *second);
  EXPECT_STREQ((*first)->easy_strerror(CURLE_COULDNT_CONNECT), "Couldn't connect to server");
  CURL* curl = (*first)->easy_init();
  ASSERT_NE(curl, nullptr);
  EXPECT_EQ((*first)->easy_setopt(curl, CURLOPT_URL, "http://127.0.0.1:1/"), CURLE_OK);
  (*first)->easy_cleanup(curl);
}

TEST(CurlLibraryTest, MissingLibraryNamesLibraryAndPackage) {
  const absl::StatusOr<CurlLibrary> lib = LoadCurlLibrary("libcurl-not-installed.so.4");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(lib.status().message(), HasSubstr("OTLP/HTTP export needs libcurl"));
  EXPECT_THAT(lib.status().message(), HasSubstr("libcurl-not-installed.so.4: "));
  EXPECT_THAT(lib.status().message(), HasSubstr("install the Debian package libcurl4"));
}

TEST(CurlLibraryTest, LibraryWithoutTheFunctionsNamesTheMissingOne) {
  // The C library loads but has no curl_global_init.
  const absl::StatusOr<CurlLibrary> lib = LoadCurlLibrary("libc.so.6");
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(lib.status().message(), HasSubstr("libc.so.6: it has no function curl_global_init"));
  EXPECT_THAT(lib.status().message(), HasSubstr("install the Debian package libcurl4"));
}

}  // namespace
}  // namespace tracewire::tools
